package dev.backoff;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * {@link BackoffListener#NONE} and {@link BackoffListener#composite(List)}.
 */
class BackoffListenerTests {

	private final List<String> calls = new ArrayList<>();

	@Test
	void noneIgnoresEveryEvent() {
		assertThatNoException().isThrownBy(() -> {
			BackoffListener.NONE.onRetryScheduled(1, Duration.ofMillis(1), new IOException());
			BackoffListener.NONE.onSuccess(Outcome.SUCCESS, 1);
			BackoffListener.NONE.onFailure(Outcome.EXHAUSTED, 3, null);
		});
	}

	@Test
	void compositeOfNoListenerIsNone() {
		assertThat(BackoffListener.composite(List.of())).isSameAs(BackoffListener.NONE);
	}

	@Test
	void compositeOfOneListenerIsThatListener() {
		BackoffListener only = new RecordingListener();
		assertThat(BackoffListener.composite(List.of(only))).isSameAs(only);
	}

	@Test
	void compositeCallsEveryListenerInOrderForEveryEvent() {
		BackoffListener composite = BackoffListener.composite(List.of(named("a"), named("b")));
		IOException failure = new IOException("x");
		composite.onRetryAfter(2, Duration.ofSeconds(1));
		composite.onRetryScheduled(2, Duration.ofMillis(5), failure);
		composite.onHedge(HedgeEvent.SENT, 2);
		composite.onSuccess(Outcome.SUCCESS_AFTER_RETRY, 3);
		composite.onFailure(Outcome.TIMED_OUT, 4, failure);
		assertThat(this.calls).containsExactly("a retry-after 2 PT1S", "b retry-after 2 PT1S", "a retry 2 PT0.005S x",
				"b retry 2 PT0.005S x", "a hedge sent 2", "b hedge sent 2", "a success success_after_retry 3", "b success success_after_retry 3", "a failure timed_out 4 x",
				"b failure timed_out 4 x");
	}

	@Test
	void compositeKeepsTheListenersItWasGiven() {
		List<BackoffListener> listeners = new ArrayList<>(List.of(named("a"), named("b")));
		BackoffListener composite = BackoffListener.composite(listeners);
		listeners.add(named("c"));
		composite.onSuccess(Outcome.SUCCESS, 1);
		assertThat(this.calls).containsExactly("a success success 1", "b success success 1");
	}

	@Test
	void compositeReceivesTheExecutorsEvents() {
		RecordingListener first = new RecordingListener();
		RecordingListener second = new RecordingListener();
		BackoffExecutor executor = BackoffExecutor.builder()
			.sleeper(new RecordingSleeper())
			.listener(BackoffListener.composite(List.of(first, second)))
			.build();
		executor.get(BackoffPolicy.defaults(), ScriptedTask.of(new IllegalStateException(), "ok").supplier());
		assertThat(first.events()).hasSize(2).isEqualTo(second.events());
	}

	/**
	 * A listener that does not override {@code onSuccess} is left out of the success path,
	 * which then calls the one that does directly; both still hear of retries and failures,
	 * and the one called directly is still guarded.
	 */
	@Test
	void compositeCallsOnlyTheListenersThatHearOfSuccessesAndStillGuardsThem() {
		BackoffListener retriesOnly = new BackoffListener() {

			@Override
			public void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
				BackoffListenerTests.this.calls.add("retriesOnly retry " + attempt);
			}

		};
		BackoffListener throwing = new BackoffListener() {

			@Override
			public void onSuccess(Outcome outcome, int attempts) {
				BackoffListenerTests.this.calls.add("throwing success " + attempts);
				throw new IllegalStateException("listener broken");
			}

		};
		BackoffListener composite = BackoffListener.composite(List.of(retriesOnly, throwing));
		composite.onRetryScheduled(1, Duration.ZERO, null);
		composite.onSuccess(Outcome.SUCCESS_AFTER_RETRY, 2);
		composite.onSuccess(Outcome.SUCCESS, 1);
		assertThat(this.calls).containsExactly("retriesOnly retry 1", "throwing success 2", "throwing success 1");
	}

	/**
	 * One that records only calls that needed retries (the backoff endpoint's events) is left
	 * out of a first attempt's success, so that the hot path calls the metrics' listener alone,
	 * as before it was added; it hears a success after retries, in order with the others.
	 */
	@Test
	void compositeLeavesAListenerThatHearsNoSuccessAtOnceOutOfTheFirstAttemptsSuccess() {
		BackoffListener afterRetries = new BackoffListener() {

			@Override
			public boolean hearsSuccessAtOnce() {
				return false;
			}

			@Override
			public void onSuccess(Outcome outcome, int attempts) {
				BackoffListenerTests.this.calls.add("afterRetries success " + outcome.tagValue() + " " + attempts);
			}

		};
		BackoffListener composite = BackoffListener.composite(List.of(named("a"), afterRetries, named("b")));
		composite.onSuccess(Outcome.SUCCESS, 1);
		composite.onSuccess(Outcome.SUCCESS_AFTER_RETRY, 3);
		assertThat(this.calls).containsExactly("a success success 1", "b success success 1",
				"a success success_after_retry 3", "afterRetries success success_after_retry 3",
				"b success success_after_retry 3");
	}

	private BackoffListener named(String name) {
		return new BackoffListener() {

			@Override
			public void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
				BackoffListenerTests.this.calls.add(name + " retry " + attempt + " " + delay + " " + message(failure));
			}

			@Override
			public void onRetryAfter(int attempt, Duration hint) {
				BackoffListenerTests.this.calls.add(name + " retry-after " + attempt + " " + hint);
			}

			@Override
			public void onHedge(HedgeEvent event, int attempt) {
				BackoffListenerTests.this.calls.add(name + " hedge " + event.tagValue() + " " + attempt);
			}

			@Override
			public void onSuccess(Outcome outcome, int attempts) {
				BackoffListenerTests.this.calls.add(name + " success " + outcome.tagValue() + " " + attempts);
			}

			@Override
			public void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
				BackoffListenerTests.this.calls
					.add(name + " failure " + outcome.tagValue() + " " + attempts + " " + message(failure));
			}

		};
	}

	private static @Nullable String message(@Nullable Throwable failure) {
		return (failure != null) ? failure.getMessage() : null;
	}

}
