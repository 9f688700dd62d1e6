package dev.backoff;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;

import dev.backoff.RecordingListener.Failure;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@code retryOnException}: a predicate on what a failure says. {@code abortOn} always wins,
 * {@code retryOn} narrows, and the predicate replaces the default classification, so it may
 * widen it; a predicate that throws ends the call with the caller's own failure.
 */
class RetryOnExceptionTests {

	private final RecordingSleeper sleeper = new RecordingSleeper();

	private final RecordingListener listener = new RecordingListener();

	private final BackoffExecutor executor = BackoffExecutor.builder()
		.sleeper(this.sleeper)
		.listener(this.listener)
		.build();

	@Test
	void retriesWhatThePredicateAcceptsAndNothingElse() {
		RetryRules rules = BackoffPolicy.builder().retryOnException(RetryOnExceptionTests::isThrottled).build().getRules();
		assertThat(rules.isRetryable(new Coded("THROTTLED"))).isTrue();
		assertThat(rules.isRetryable(new Coded("INVALID"))).isFalse();
	}

	@Test
	void replacesTheDefaultClassificationSoItMayWidenIt() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.retryableByDefault((failure) -> false)
			.retryOnException(RetryOnExceptionTests::isThrottled)
			.build();
		assertThat(policy.getRules().isRetryable(new Coded("THROTTLED"))).isTrue();
		// Even an Error, which the default never retries.
		assertThat(BackoffPolicy.builder().retryOnException((failure) -> true).build().getRules()
			.isRetryable(new AssertionError())).isTrue();
	}

	@Test
	void abortOnWinsOverThePredicate() {
		RetryRules rules = BackoffPolicy.builder()
			.abortOn(Coded.class)
			.retryOnException((failure) -> true)
			.build()
			.getRules();
		assertThat(rules.isRetryable(new Coded("THROTTLED"))).isFalse();
	}

	@Test
	void retryOnNarrowsBeforeThePredicateDecides() {
		RetryRules rules = BackoffPolicy.builder()
			.retryOn(IOException.class)
			.retryOnException((failure) -> !(failure instanceof UncheckedIOException))
			.build()
			.getRules();
		assertThat(rules.isRetryable(new Coded("THROTTLED"))).isFalse();
		assertThat(rules.isRetryable(new IOException())).isTrue();
		assertThat(rules.isRetryable(new UncheckedIOException(new IOException()))).isFalse();
	}

	@Test
	void retriesAThrottledCallUntilItSucceeds() throws Exception {
		BackoffPolicy policy = BackoffPolicy.builder().retryOnException(RetryOnExceptionTests::isThrottled).build();
		ScriptedTask<String> task = ScriptedTask.of(new Coded("THROTTLED"), "ok");
		assertThat(this.executor.call(policy, task.callable())).isEqualTo("ok");
		assertThat(task.calls()).isEqualTo(2);
		assertThat(this.sleeper.sleeps()).hasSize(1);
	}

	@Test
	void aPredicateThatThrowsEndsTheCallWithTheCallersOwnFailure() {
		IllegalStateException bug = new IllegalStateException("bug in the predicate");
		BackoffPolicy policy = BackoffPolicy.builder().retryOnException((failure) -> {
			throw bug;
		}).build();
		Coded failure = new Coded("THROTTLED");
		Throwable thrown = catchThrowable(() -> this.executor.call(policy, ScriptedTask.of(failure, "ok").callable()));
		assertThat(thrown).isSameAs(failure);
		assertThat(thrown.getSuppressed()).containsExactly(bug);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.NOT_RETRYABLE, 1, failure));
		assertThat(this.sleeper.sleeps()).isEmpty();
	}

	@Test
	void theAsyncPathAsksThePredicateOfTheUnwrappedFailure() {
		ManualScheduler scheduler = new ManualScheduler(new ManualNanoClock());
		BackoffPolicy policy = BackoffPolicy.builder().retryOnException(RetryOnExceptionTests::isThrottled).build();
		ScriptedTask<String> task = ScriptedTask.of(new Coded("THROTTLED"), "ok");
		CompletableFuture<String> result = this.executor.executeAsync(policy, () -> {
			try {
				return CompletableFuture.completedFuture(task.callable().call());
			}
			catch (Exception ex) {
				// Wrapped as a CompletionException by the stage: the predicate sees the cause.
				return CompletableFuture.supplyAsync(() -> {
					throw new java.util.concurrent.CompletionException(ex);
				}, Runnable::run);
			}
		}, scheduler);
		scheduler.runAll();
		assertThat(result).isCompletedWithValue("ok");
		assertThat(task.calls()).isEqualTo(2);
	}

	private static boolean isThrottled(Throwable failure) {
		return failure instanceof Coded coded && "THROTTLED".equals(coded.code);
	}

	/** One exception type for every failure, with a code inside, as many SDKs throw. */
	static final class Coded extends RuntimeException {

		final String code;

		Coded(String code) {
			super(code);
			this.code = code;
		}

	}

}
