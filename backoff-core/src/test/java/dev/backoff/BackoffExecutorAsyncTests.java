package dev.backoff;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.backoff.RecordingListener.Failure;
import dev.backoff.RecordingListener.RetryScheduled;
import dev.backoff.RecordingListener.Success;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link BackoffExecutor#executeAsync}: driven by a {@link ManualScheduler} that records each
 * wait and runs the next attempt when the test says so. Covers retries, the failure the future
 * completes with, cancellation, a scheduler that stops, result predicates, {@code maxElapsed},
 * and exactly one end event per call.
 */
class BackoffExecutorAsyncTests {

	private final ManualNanoClock clock = new ManualNanoClock();

	private final ManualScheduler scheduler = new ManualScheduler(this.clock);

	private final RecordingListener listener = new RecordingListener();

	private final BackoffExecutor executor = BackoffExecutor.builder()
		.sleeper((delay) -> {
			throw new AssertionError("The non-blocking executor must never sleep");
		})
		.clock(this.clock)
		.listener(this.listener)
		.build();

	@Test
	void aFirstAttemptSuccessCompletesOnTheCallingThreadWithoutScheduling() {
		CompletableFuture<String> future = execute(policy(3), stages(ScriptedTask.of("ok")));
		assertThat(future).isCompletedWithValue("ok");
		assertThat(this.scheduler.delays()).isEmpty();
		assertThat(this.listener.events()).containsExactly(new Success(Outcome.SUCCESS, 1));
	}

	@Test
	void successAfterFailuresSchedulesTheListenersDelays() {
		IOException first = new IOException("first");
		IOException second = new IOException("second");
		ScriptedTask<String> task = ScriptedTask.of(first, second, "ok");
		CompletableFuture<String> future = execute(policy(5), stages(task));
		assertThat(task.calls()).isEqualTo(1);
		assertThat(future).isNotDone();
		assertThat(this.scheduler.runNext()).isTrue();
		assertThat(future).isNotDone();
		assertThat(this.scheduler.runNext()).isTrue();
		assertThat(future).isCompletedWithValue("ok");
		assertThat(this.scheduler.delays()).containsExactly(millis(100), millis(200)).isEqualTo(this.listener.delays());
		assertThat(this.listener.events()).containsExactly(new RetryScheduled(1, millis(100), first),
				new RetryScheduled(2, millis(200), second), new Success(Outcome.SUCCESS_AFTER_RETRY, 3));
	}

	@Test
	void aFailureThrownByTheSupplierIsRetriedLikeAFailedStage() {
		IllegalStateException failure = new IllegalStateException("thrown");
		ScriptedTask<String> task = ScriptedTask.of(failure, "ok");
		CompletableFuture<String> future = execute(policy(3), throwing(task));
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("ok");
		assertThat(this.listener.events()).containsExactly(new RetryScheduled(1, millis(100), failure),
				new Success(Outcome.SUCCESS_AFTER_RETRY, 2));
	}

	@Test
	void aNullStageCountsAsAFailedAttempt() {
		ScriptedTask<@Nullable CompletionStage<String>> task = ScriptedTask.of(null,
				CompletableFuture.completedFuture("ok"));
		CompletableFuture<String> future = execute(policy(3), task.supplier());
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("ok");
		RetryScheduled retry = (RetryScheduled) this.listener.events().get(0);
		assertThat(retry.failure()).isInstanceOf(IllegalStateException.class)
			.hasMessage("The task returned null instead of a CompletionStage");
	}

	@Test
	void exhaustionCompletesTheFutureWithTheOriginalFailure() {
		IOException first = new IOException("first");
		IOException second = new IOException("second");
		IOException last = new IOException("last");
		CompletableFuture<String> future = execute(policy(3), stages(ScriptedTask.of(first, second, last)));
		assertThat(this.scheduler.runAll()).isEqualTo(2);
		assertThatThrownBy(future::join).isInstanceOf(CompletionException.class).cause().isSameAs(last);
		assertThat(future.handle((result, ex) -> ex).join()).isSameAs(last);
		assertThat(last.getSuppressed()).containsExactly(first, second);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.EXHAUSTED, 3, last));
	}

	@Test
	void aFailureThrownByTheSupplierEndsTheFutureUnwrapped() {
		IllegalStateException failure = new IllegalStateException("thrown");
		CompletableFuture<String> future = execute(policy(1), throwing(ScriptedTask.of(failure)));
		assertThat(future.handle((result, ex) -> ex).join()).isSameAs(failure);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.EXHAUSTED, 1, failure));
	}

	@Test
	void failuresWrappedByDependentStagesAreUnwrapped() {
		IOException failure = new IOException("root");
		Supplier<CompletionStage<String>> wrapping = () -> CompletableFuture.<String>failedFuture(failure)
			.thenApply(Function.identity());
		CompletableFuture<String> future = execute(policy(2), wrapping);
		this.scheduler.runAll();
		assertThat(future.handle((result, ex) -> ex).join()).isSameAs(failure);
		assertThat(this.listener.events()).containsExactly(new RetryScheduled(1, millis(100), failure),
				new Failure(Outcome.EXHAUSTED, 2, failure));
	}

	@Test
	void aFailureThatIsNotRetryableEndsTheFutureAtOnce() {
		IllegalArgumentException failure = new IllegalArgumentException("bad id");
		BackoffPolicy policy = policy(5).toBuilder().abortOn(IllegalArgumentException.class).build();
		CompletableFuture<String> future = execute(policy, stages(ScriptedTask.of(failure, "never")));
		assertThat(future.handle((result, ex) -> ex).join()).isSameAs(failure);
		assertThat(this.scheduler.delays()).isEmpty();
		assertThat(this.listener.events()).containsExactly(new Failure(Outcome.NOT_RETRYABLE, 1, failure));
	}

	@Test
	void cancellingCancelsThePendingRetryAndNoLaterAttemptRuns() {
		IOException failure = new IOException();
		ScriptedTask<String> task = ScriptedTask.of(failure, "never");
		CompletableFuture<String> future = execute(policy(5), stages(task));
		assertThat(future.cancel(false)).isTrue();
		assertThat(this.scheduler.scheduled()).singleElement().extracting(Future::isCancelled).isEqualTo(true);
		assertThat(this.scheduler.runAll()).isZero();
		assertThat(task.calls()).isEqualTo(1);
		assertThat(future).isCancelled();
		assertThat(this.listener.ends()).singleElement().isInstanceOfSatisfying(Failure.class, (end) -> {
			assertThat(end.outcome()).isEqualTo(Outcome.INTERRUPTED);
			assertThat(end.attempts()).isEqualTo(1);
			assertThat(end.failure()).isInstanceOf(CancellationException.class).hasSuppressedException(failure);
		});
	}

	@Test
	void cancellingWhileTheNextRetryIsBeingScheduledStillCancelsIt() {
		AtomicReference<@Nullable Future<?>> call = new AtomicReference<>();
		BackoffListener cancelling = new BackoffListener() {
			@Override
			public void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
				// The caller's thread cancels between the decision to retry and the scheduling.
				Future<?> future = call.get();
				if (future != null) {
					future.cancel(false);
				}
			}
		};
		ScriptedTask<String> task = ScriptedTask.of(new IOException());
		CompletableFuture<String> future = this.executor.executeAsync(policy(5), null,
				BackoffListener.composite(List.of(this.listener, cancelling)), stages(task), this.scheduler);
		call.set(future);
		this.scheduler.runNext();
		assertThat(future).isCancelled();
		assertThat(this.scheduler.pending()).isZero();
		assertThat(this.scheduler.runAll()).isZero();
		assertThat(task.calls()).isEqualTo(2);
		assertThat(this.listener.ends()).hasSize(1);
	}

	@Test
	void completingTheFutureByTheCallerStopsLaterAttempts() {
		ScriptedTask<String> task = ScriptedTask.of(new IOException(), "never");
		CompletableFuture<String> future = execute(policy(5), stages(task));
		future.completeExceptionally(new java.util.concurrent.TimeoutException("caller gave up"));
		this.scheduler.runAll();
		assertThat(task.calls()).isEqualTo(1);
		assertThat(this.listener.ends()).singleElement()
			.isInstanceOfSatisfying(Failure.class, (end) -> assertThat(end.outcome()).isEqualTo(Outcome.INTERRUPTED));
	}

	@Test
	void cancellingTwiceReportsTheEndOnce() {
		CompletableFuture<String> future = execute(policy(5), stages(ScriptedTask.of(new IOException())));
		assertThat(future.cancel(true)).isTrue();
		assertThat(future.cancel(true)).isFalse();
		assertThat(this.listener.ends()).hasSize(1);
	}

	@Test
	void cancellingLeavesTheAttemptInFlightToOtherCallersThatShareIt() {
		CompletableFuture<String> shared = new CompletableFuture<>();
		CompletableFuture<String> first = execute(policy(5), () -> shared);
		CompletableFuture<String> second = execute(policy(5), () -> shared);
		assertThat(first.cancel(false)).isTrue();
		assertThat(shared).isNotDone();
		shared.complete("shared");
		assertThat(second).isCompletedWithValue("shared");
		assertThat(first).isCancelled();
		assertThat(this.scheduler.delays()).isEmpty();
		assertThat(this.listener.ends()).hasSize(2)
			.anySatisfy((end) -> assertThat(end).isInstanceOfSatisfying(Failure.class,
					(failure) -> assertThat(failure.outcome()).isEqualTo(Outcome.INTERRUPTED)));
	}

	@Test
	void anAttemptThatCompletesAfterTheCancellationStartsNoRetry() {
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> future = execute(policy(5), () -> attempt);
		assertThat(future.cancel(false)).isTrue();
		attempt.completeExceptionally(new IllegalStateException("late failure"));
		assertThat(this.scheduler.delays()).isEmpty();
		assertThat(this.listener.ends()).singleElement().isInstanceOfSatisfying(Failure.class,
				(end) -> assertThat(end.outcome()).isEqualTo(Outcome.INTERRUPTED));
	}

	@Test
	void cancellingAfterTheEndChangesNothing() {
		CompletableFuture<String> future = execute(policy(3), stages(ScriptedTask.of("ok")));
		assertThat(future.cancel(true)).isFalse();
		assertThat(future).isCompletedWithValue("ok");
		assertThat(this.listener.events()).containsExactly(new Success(Outcome.SUCCESS, 1));
	}

	@Test
	void anAttemptCompletingLaterContinuesTheCall() {
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> future = execute(policy(3), () -> attempt);
		assertThat(future).isNotDone();
		attempt.complete("late");
		assertThat(future).isCompletedWithValue("late");
		assertThat(this.listener.events()).containsExactly(new Success(Outcome.SUCCESS, 1));
	}

	@Test
	void aSchedulerThatRejectsTheRetryEndsTheCallWithTheOriginalFailure() {
		IOException failure = new IOException("first");
		this.scheduler.shutdown();
		ScriptedTask<String> task = ScriptedTask.of(failure, "never");
		CompletableFuture<String> future = execute(policy(5), stages(task));
		assertThat(future.handle((result, ex) -> ex).join()).isSameAs(failure);
		assertThat(failure.getSuppressed()).singleElement().isInstanceOf(RejectedExecutionException.class);
		assertThat(task.calls()).isEqualTo(1);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.INTERRUPTED, 1, failure));
	}

	@Test
	void aSchedulerShutDownBeforeTheRetryRunsEndsTheCallInsteadOfAttempting() {
		IOException failure = new IOException("first");
		ScriptedTask<String> task = ScriptedTask.of(failure, "never");
		CompletableFuture<String> future = execute(policy(5), stages(task));
		this.scheduler.shutdown();
		// Like a ScheduledThreadPoolExecutor, which still runs delayed tasks after shutdown() by default.
		assertThat(this.scheduler.runNext()).isTrue();
		assertThat(task.calls()).isEqualTo(1);
		assertThat(future.handle((result, ex) -> ex).join()).isSameAs(failure);
		assertThat(failure.getSuppressed()).singleElement().isInstanceOf(RejectedExecutionException.class);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.INTERRUPTED, 1, failure));
	}

	@Test
	void aResultPredicateRetriesUntilTheResultChanges() {
		BackoffPolicy policy = policy(5).toBuilder().retryIfResult("NOT_READY"::equals).build();
		CompletableFuture<String> future = execute(policy, stages(ScriptedTask.of("NOT_READY", "NOT_READY", "READY")));
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("READY");
		assertThat(this.listener.events()).containsExactly(new RetryScheduled(1, millis(100), null),
				new RetryScheduled(2, millis(200), null), new Success(Outcome.SUCCESS_AFTER_RETRY, 3));
	}

	@Test
	void aResultPredicateCompletesWithTheLastResultWhenAttemptsRunOut() {
		BackoffPolicy policy = policy(3).toBuilder().retryIfResult((String result) -> result.startsWith("pending")).build();
		ScriptedTask<String> task = ScriptedTask.of("pending 1", "pending 2", "pending 3", "never");
		CompletableFuture<String> future = execute(policy, stages(task));
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("pending 3");
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.EXHAUSTED, 3, null));
	}

	@Test
	void maxElapsedTimesOutWithoutSchedulingTheWaitThatWouldPassIt() {
		IOException failure = new IOException();
		BackoffPolicy policy = policy(10).toBuilder().maxElapsed(Duration.ofSeconds(1)).build();
		CompletableFuture<String> future = execute(policy, stages(ScriptedTask.of(failure)));
		this.scheduler.runAll();
		assertThat(this.scheduler.delays()).containsExactly(millis(100), millis(200), millis(400));
		assertThat(future.handle((result, ex) -> ex).join()).isSameAs(failure);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.TIMED_OUT, 4, failure));
	}

	@Test
	void executeAsyncWithoutAListenerReportsToTheExecutorsListener() {
		CompletableFuture<String> future = this.executor.executeAsync(policy(3),
				stages(ScriptedTask.of(new IOException(), "ok")), this.scheduler);
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("ok");
		assertThat(this.listener.ends()).containsExactly(new Success(Outcome.SUCCESS_AFTER_RETRY, 2));
	}

	@Test
	void dependentStagesAreOrdinaryFutures() {
		CompletableFuture<String> future = execute(policy(3), stages(ScriptedTask.of(new IOException(), "ok")));
		CompletableFuture<Integer> length = future.thenApply(String::length);
		assertThat(length).isNotDone();
		this.scheduler.runAll();
		assertThat(length).isCompletedWithValue(2);
	}

	private <T> CompletableFuture<T> execute(BackoffPolicy policy, Supplier<? extends CompletionStage<T>> task) {
		return this.executor.executeAsync(policy, null, this.listener, task, this.scheduler);
	}

	/** @return a supplier of stages completed (or failed) as the task's script says */
	private static <T> Supplier<CompletionStage<T>> stages(ScriptedTask<T> task) {
		return () -> {
			try {
				return CompletableFuture.completedFuture(task.run());
			}
			catch (Throwable ex) {
				return CompletableFuture.failedFuture(ex);
			}
		};
	}

	/** @return a supplier that throws the task's failures instead of returning failed stages */
	private static <T> Supplier<CompletionStage<T>> throwing(ScriptedTask<T> task) {
		Supplier<T> supplier = task.supplier();
		return () -> CompletableFuture.completedFuture(supplier.get());
	}

	private static BackoffPolicy policy(int maxAttempts) {
		return TestPolicies.doublingFrom100ms(maxAttempts);
	}

	private static Duration millis(long millis) {
		return Duration.ofMillis(millis);
	}

}
