package dev.backoff.spring.events;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import dev.backoff.BackoffCall;
import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.HedgeEvent;
import dev.backoff.Jitter;
import dev.backoff.Outcome;
import dev.backoff.RetryAfter;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.BackoffPolicies.SettingChange;
import dev.backoff.spring.config.BackoffSettings;
import dev.backoff.spring.config.PolicySettings;
import dev.backoff.spring.events.BackoffEvent.Kind;
import dev.backoff.spring.operation.BackoffOperation;
import dev.backoff.spring.operation.BackoffOperationSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;

/**
 * {@link BackoffEvents}: what each listener event records, through a real operation's calls
 * stepped by hand, on a fixed clock.
 */
class BackoffEventsTests {

	private static final Instant NOW = Instant.parse("2026-11-28T06:00:00Z");

	private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);

	@Test
	void aCallThatSucceedsAtOnceRecordsNothingAndItsListenerIsLeftOutOfThatPath() {
		BackoffEvents events = new BackoffEvents(this.clock, 10, true);
		BackoffOperation operation = operation(events, policies());
		operation.succeededAtOnce();
		assertThat(events.get("quotes")).isEmpty();
		assertThat(events.create(operation).hearsSuccessAtOnce()).isFalse();
	}

	@Test
	void aRetryAndASuccessAfterItAreRecordedNewestFirst() {
		BackoffEvents events = new BackoffEvents(this.clock, 10, true);
		BackoffCall call = operation(events, policies()).startCall();
		call.beginAttempt();
		assertThat(call.nextDelay(new IOException("connection reset"))).isEqualTo(Duration.ofMillis(100));
		call.beginAttempt();
		call.succeed();
		assertThat(events.get("quotes")).containsExactly(
				new BackoffEvent(NOW, Kind.CALL_ENDED, "Quotes.fetch", 2, null, false, Outcome.SUCCESS_AFTER_RETRY, null,
						null, Map.of()),
				new BackoffEvent(NOW, Kind.RETRY_SCHEDULED, "Quotes.fetch", 1, Duration.ofMillis(100), false, null,
						IOException.class.getName(), "connection reset", Map.of()));
	}

	@Test
	void aRetryWhoseWaitTheServersRetryAfterSetSaysSo() {
		BackoffEvents events = new BackoffEvents(this.clock, 10, true);
		BackoffCall call = operation(events, policies()).startCall();
		call.beginAttempt();
		assertThat(call.nextDelay(new Throttled(Duration.ofSeconds(2)))).isEqualTo(Duration.ofSeconds(2));
		call.beginAttempt();
		assertThat(call.nextDelay(new IOException())).isEqualTo(Duration.ofMillis(200));
		List<BackoffEvent> recorded = events.get("quotes");
		assertThat(recorded).extracting(BackoffEvent::attempt, BackoffEvent::delay, BackoffEvent::retryAfter)
			.containsExactly(tuple(2, Duration.ofMillis(200), false),
					tuple(1, Duration.ofSeconds(2), true));
		// No message: the field is null, not the text "null".
		assertThat(recorded.get(0).message()).isNull();
	}

	@Test
	void aCallThatEndsWithoutSuccessIsRecordedWithItsOutcomeAndABudgetRefusalAsSuch() {
		BackoffEvents events = new BackoffEvents(this.clock, 10, true);
		BackoffListener listener = events.create(operation(events, policies()));
		listener.onFailure(Outcome.EXHAUSTED, 3, new IllegalStateException("down"));
		listener.onFailure(Outcome.BUDGET_EXHAUSTED, 1, null);
		assertThat(events.get("quotes")).extracting(BackoffEvent::kind, BackoffEvent::outcome, BackoffEvent::attempt,
				BackoffEvent::failure)
			.containsExactly(tuple(Kind.BUDGET_REFUSED, Outcome.BUDGET_EXHAUSTED, 1, "none"),
					tuple(Kind.CALL_ENDED, Outcome.EXHAUSTED, 3,
							IllegalStateException.class.getName()));
	}

	@Test
	void hedgesSentAndWonAreRecordedTheOthersNot() {
		BackoffEvents events = new BackoffEvents(this.clock, 10, true);
		BackoffListener listener = events.create(operation(events, policies()));
		listener.onHedge(HedgeEvent.SENT, 2, null);
		listener.onHedge(HedgeEvent.CANCELLED, 1, null);
		listener.onHedge(HedgeEvent.WON, 2, null);
		assertThat(events.get("quotes")).extracting(BackoffEvent::kind).containsExactly(Kind.HEDGE_WON, Kind.HEDGE_SENT);
	}

	@Test
	void aLongMessageIsCutAndMessagesCanBeLeftOut() {
		String secret = "x".repeat(BackoffEvents.MESSAGE_LIMIT) + "token=s3cr3t";
		BackoffEvents cut = new BackoffEvents(this.clock, 10, true);
		cut.create(operation(cut, policies())).onFailure(Outcome.NOT_RETRYABLE, 1, new IllegalStateException(secret));
		assertThat(cut.get("quotes").get(0).message()).isEqualTo("x".repeat(BackoffEvents.MESSAGE_LIMIT) + "…");

		BackoffEvents without = new BackoffEvents(this.clock, 10, false);
		without.create(operation(without, policies()))
			.onFailure(Outcome.NOT_RETRYABLE, 1, new IllegalStateException(secret));
		assertThat(without.get("quotes").get(0).message()).isNull();
		assertThat(without.get("quotes").get(0).failure()).isEqualTo(IllegalStateException.class.getName());
	}

	@Test
	void aCutNeverSplitsASurrogatePair() {
		String message = "x".repeat(BackoffEvents.MESSAGE_LIMIT - 1) + "😀" + "tail";
		assertThat(BackoffEvents.cut(message)).isEqualTo("x".repeat(BackoffEvents.MESSAGE_LIMIT - 1) + "…");
	}

	@Test
	void aLiveChangeIsRecordedUnderItsPolicyWithTheSettingsThatChanged() {
		BackoffEvents events = new BackoffEvents(this.clock, 10, true);
		BackoffPolicies policies = policies();
		events.watch(policies);
		policies.apply(policies.snapshot().withChange("quotes", Map.of("maxAttempts", "5")));
		assertThat(events.get("quotes")).containsExactly(new BackoffEvent(NOW, Kind.POLICY_CHANGED, null, 0, null,
				false, null, null, null, Map.of("maxAttempts", new SettingChange(3, 5))));
	}

	@Test
	void aBufferOfZeroRecordsNothing() {
		BackoffEvents events = new BackoffEvents(this.clock, 0, true);
		BackoffPolicies policies = policies();
		events.watch(policies);
		BackoffOperation operation = operation(events, policies);
		assertThat(events.create(operation)).isSameAs(BackoffListener.NONE);
		operation.getListener().onFailure(Outcome.EXHAUSTED, 3, null);
		policies.apply(policies.snapshot().withChange("quotes", Map.of("maxAttempts", "5")));
		assertThat(events.get("quotes")).isEmpty();
	}

	@Test
	void aNegativeBufferSizeIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new BackoffEvents(this.clock, -1, true))
			.withMessage("bufferSize must be 0 or more, was -1");
	}

	private static BackoffPolicies policies() {
		BackoffSettings settings = new BackoffSettings();
		PolicySettings quotes = new PolicySettings();
		quotes.setMaxAttempts(3);
		quotes.setJitter(Jitter.NONE);
		settings.getPolicies().put("quotes", quotes);
		return BackoffPolicies.of(settings, null, BackoffPolicy.defaults(), null);
	}

	private static BackoffOperation operation(BackoffEvents events, BackoffPolicies policies) {
		BackoffOperationSource source = BackoffOperationSource.create(policies, BackoffExecutor.builder().build(), null,
				List.of(), List.of(events), (value) -> value, null);
		return source.getOperation("quotes", "Quotes.fetch", String.class);
	}

	/** A failure with a server's hint. */
	static final class Throttled extends RuntimeException implements RetryAfter {

		private final Duration hint;

		Throttled(Duration hint) {
			super((String) null);
			this.hint = hint;
		}

		@Override
		public @Nullable Duration getRetryAfter() {
			return this.hint;
		}

	}

}
