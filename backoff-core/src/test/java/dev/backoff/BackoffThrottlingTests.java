package dev.backoff;

import java.io.IOException;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import dev.backoff.RecordingListener.Failure;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The throttling schedule and cost: failures classified as throttling wait by
 * {@code throttleBaseDelay}/{@code throttleMaxDelay} and take {@code throttleCost} of a budget
 * token; every other failure is as before. Waits are recorded; nothing sleeps.
 */
class BackoffThrottlingTests {

	private final ManualNanoClock clock = new ManualNanoClock();

	private final RecordingSleeper sleeper = new RecordingSleeper(this.clock);

	private final RecordingListener listener = new RecordingListener();

	private final BackoffExecutor executor = BackoffExecutor.builder()
		.sleeper(this.sleeper)
		.clock(this.clock)
		.randomSource(() -> new SplittableRandom(7))
		.listener(this.listener)
		.build();

	private static BackoffPolicy.Builder throttling() {
		return BackoffPolicy.builder()
			.maxAttempts(6)
			.jitter(Jitter.NONE)
			.baseDelay(Duration.ofMillis(100))
			.maxDelay(Duration.ofSeconds(5))
			.throttleBaseDelay(Duration.ofSeconds(1))
			.throttleMaxDelay(Duration.ofSeconds(20))
			.throttleOn(Throttled.class);
	}

	@Test
	void throttledFailuresWaitByTheThrottlingScheduleAndOthersByTheNormalOneCountingRetriesAcrossBoth()
			throws Exception {
		ScriptedTask<String> task = ScriptedTask.of(new IOException(), new Throttled(), new Throttled(),
				new IOException(), "ok");
		assertThat(this.executor.call(throttling().build(), task.callable())).isEqualTo("ok");
		// Retry n draws from v(n) of its schedule: 100ms·2^0, 1s·2^1, 1s·2^2, 100ms·2^3.
		assertThat(this.sleeper.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofSeconds(2),
				Duration.ofSeconds(4), Duration.ofMillis(800));
	}

	@Test
	void theThrottlingCapIsAppliedBeforeTheJitter() throws Exception {
		BackoffPolicy policy = throttling().maxAttempts(4)
			.jitter(Jitter.FULL)
			.throttleBaseDelay(Duration.ofSeconds(8))
			.throttleMaxDelay(Duration.ofSeconds(10))
			.build();
		for (int run = 0; run < 200; run++) {
			this.sleeper.sleeps().clear();
			ScriptedTask<String> task = ScriptedTask.of(new Throttled(), new Throttled(), new Throttled(), "ok");
			this.executor.call(policy, task.callable());
			// Ceilings 8s, 10s (16s capped), 10s (32s capped): a full-jitter draw below each.
			assertThat(this.sleeper.sleeps().get(0)).isLessThan(Duration.ofSeconds(8));
			assertThat(this.sleeper.sleeps().subList(1, 3)).allMatch((wait) -> wait.compareTo(Duration.ofSeconds(10)) < 0);
		}
	}

	@Test
	void withoutAThrottlingScheduleThrottledFailuresWaitByTheNormalOne() throws Exception {
		BackoffPolicy policy = throttling().throttleBaseDelay(null).throttleMaxDelay(null).build();
		ScriptedTask<String> task = ScriptedTask.of(new Throttled(), new Throttled(), "ok");
		this.executor.call(policy, task.callable());
		assertThat(this.sleeper.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
	}

	@Test
	void aThrottledFailureTakesTheThrottleCostOfATokenAndAnyOtherAWholeOne() throws Throwable {
		RetryBudget budget = RetryBudget.of(10, 0.1, 0.25);
		this.executor.execute(throttling().build(), budget, BackoffListener.NONE,
				ScriptedTask.of(new Throttled(), new Throttled(), new IOException(), "ok"));
		// 10 − 0.25 − 0.25 − 1, then a success gives back 0.1.
		assertThat(budget.getTokens()).isEqualTo(8.6);
		assertThat(RetryBudget.defaults().getThrottleCost()).isEqualTo(0.357);
	}

	@Test
	void aThrottlingEpisodeKeepsRetryingWhereTheSameFailuresUnthrottledSpendTheBudget() {
		// Retries stop once no more than half of the 10 tokens is left: after 5 plain failures,
		// but only after 15 throttled ones (14 × 0.357 = 4.998 leaves 5.002).
		RetryBudget throttled = RetryBudget.defaults();
		assertThat(IntStream.range(0, 14).mapToObj((i) -> throttled.onFailure(true))).containsOnly(true);
		assertThat(throttled.onFailure(true)).isFalse();
		RetryBudget plain = RetryBudget.defaults();
		assertThat(IntStream.range(0, 4).mapToObj((i) -> plain.onFailure(false))).containsOnly(true);
		assertThat(plain.onFailure(false)).isFalse();
	}

	@Test
	void theDefaultPredicateClassifiesFailuresAsThrottlingAndAThrowingOneReadsAsNot() throws Exception {
		BackoffPolicy policy = throttling().throttleOn()
			.throttledByDefault((failure) -> {
				if (failure.getMessage() == null) {
					throw new IllegalStateException("a predicate bug");
				}
				return failure.getMessage().equals("429");
			})
			.build();
		ScriptedTask<String> task = ScriptedTask.of(new IOException("429"), new IOException(), "ok");
		assertThat(this.executor.call(policy, task.callable())).isEqualTo("ok");
		assertThat(this.sleeper.sleeps()).containsExactly(Duration.ofSeconds(1), Duration.ofMillis(200));
	}

	@Test
	void throttlingNeverMakesAFailureRetryable() {
		BackoffPolicy policy = throttling().abortOn(IllegalStateException.class)
			.throttledByDefault((failure) -> true)
			.build();
		IllegalStateException failure = new IllegalStateException();
		assertThat(catchThrowable(() -> this.executor.call(policy, ScriptedTask.of(failure).callable())))
			.isSameAs(failure);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.NOT_RETRYABLE, 1, failure));
	}

	@Test
	void theWorstCaseAndTheLongestRetryAfterHonouredAreTheThrottlingSchedules() {
		BackoffPolicy policy = throttling().maxAttempts(4).build();
		// 1s + 2s + 4s, against 100 + 200 + 400 ms for the normal schedule.
		assertThat(policy.getSchedule().worstCaseTotalDelay()).isEqualTo(Duration.ofSeconds(7));
		assertThat(policy.getMaxRetryAfter()).isEqualTo(Duration.ofSeconds(20));
		assertThat(throttling().maxRetryAfter(Duration.ofSeconds(3)).build().getMaxRetryAfter())
			.isEqualTo(Duration.ofSeconds(3));
	}

	@Test
	void anUnsetThrottleMaxDelayIsTheMaxDelayOrTheThrottleBaseWhenLonger() {
		BackoffSchedule shorter = throttling().throttleMaxDelay(null).build().getSchedule();
		assertThat(shorter.getThrottling().getMaxDelay()).isEqualTo(Duration.ofSeconds(5));
		BackoffSchedule longer = throttling().throttleMaxDelay(null).throttleBaseDelay(Duration.ofSeconds(8)).build()
			.getSchedule();
		assertThat(longer.getThrottling().getMaxDelay()).isEqualTo(Duration.ofSeconds(8));
		assertThat(longer.getThrottling().getThrottling()).isNull();
	}

	@Test
	void aBuilderFromAPolicyKeepsItsThrottling() {
		BackoffPolicy policy = throttling().build().toBuilder().build();
		assertThat(policy.getSchedule().getThrottling().getBaseDelay()).isEqualTo(Duration.ofSeconds(1));
		assertThat(policy.getRules().getThrottleOn()).containsExactly(Throttled.class);
		assertThat(policy.toString()).contains("throttleBaseDelay=PT1S, throttleMaxDelay=PT20S", "throttleOn=");
	}

	@Test
	void invalidThrottlingSettingsNameTheSettingTheValueAndTheRule() {
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> throttling().throttleBaseDelay(null).build())
			.withMessage("throttleMaxDelay was PT20S, but needs throttleBaseDelay to be set too");
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> throttling().throttleBaseDelay(Duration.ofMillis(50)).build())
			.withMessage("throttleBaseDelay was PT0.05S, but must be at least baseDelay (PT0.1S): a retry after "
					+ "throttling waits longer than another");
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> throttling().throttleMaxDelay(Duration.ofSeconds(2)).build())
			.withMessage("throttleMaxDelay was PT2S, but must be at least maxDelay (PT5S): a retry after "
					+ "throttling waits longer than another");
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> throttling().throttleBaseDelay(Duration.ofSeconds(30)).build())
			.withMessage("throttleMaxDelay was PT20S, but must be at least throttleBaseDelay (PT30S)");
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> throttling().retryOn(IllegalStateException.class).build())
			.withMessage("throttleOn was " + Throttled.class.getName() + ", but must name a subtype of a type that "
					+ "retryOn names (java.lang.IllegalStateException): throttling only changes how a retried "
					+ "failure waits");
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> throttling().abortOn(RuntimeException.class).build())
			.withMessageContaining("throttleOn was " + Throttled.class.getName()
					+ ", but must not name a subtype of java.lang.RuntimeException, which abortOn names");
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> RetryBudget.of(10, 0.1, 0))
			.withMessageStartingWith("budget.throttleCost was 0.0, but must be at least 0.001");
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> RetryBudget.of(10, 0.1, 1.5))
			.withMessageContaining("at most 1");
	}

	static class Throttled extends RuntimeException {

	}

}
