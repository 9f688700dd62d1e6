package dev.backoff;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import dev.backoff.RecordingListener.Failure;
import dev.backoff.RecordingListener.RetryScheduled;
import dev.backoff.RecordingListener.Success;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link BackoffPolicy.Builder#attemptTimeout}: the non-blocking executor fails an attempt
 * that has not completed in time with a {@link TimeoutException} and goes on by the schedule;
 * a {@link ManualScheduler} holds each timer, so that the test decides when time passes and
 * can see that nothing is left scheduled. The blocking executor refuses such a policy.
 */
class AttemptTimeoutTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(2);

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

	/** Every attempt's stage, in order, as the task handed them out. */
	private final List<CompletableFuture<String>> attempts = new ArrayList<>();

	@Test
	void attemptsThatNeverCompleteAreTimedOutRetriedAndEndExhaustedWithATimeoutException() {
		CompletableFuture<String> future = execute(timed(3), this::hanging);
		assertThat(this.attempts).hasSize(1);
		assertThat(future).isNotDone();
		// Timer, wait, timer, wait, timer: each wait follows the schedule, after the timeout.
		assertThat(this.scheduler.runAll()).isEqualTo(5);
		assertThat(this.scheduler.delays()).containsExactly(TIMEOUT, millis(100), TIMEOUT, millis(200), TIMEOUT);
		assertThat(this.attempts).hasSize(3);
		Throwable last = failureOf(future);
		assertThat(last).isInstanceOf(TimeoutException.class).hasMessage("attempt 3 did not complete within 2s");
		// Each attempt's own future ends with its timeout, so that its dependents stop waiting too.
		List<Throwable> timeouts = this.attempts.stream().map(AttemptTimeoutTests::failureOf).toList();
		assertThat(timeouts.get(2)).isSameAs(last);
		assertThat(timeouts.get(0)).hasMessage("attempt 1 did not complete within 2s");
		assertThat(timeouts.get(1)).hasMessage("attempt 2 did not complete within 2s");
		assertThat(last.getSuppressed()).containsExactly(timeouts.get(0), timeouts.get(1));
		assertThat(this.listener.events()).containsExactly(new RetryScheduled(1, millis(100), timeouts.get(0)),
				new RetryScheduled(2, millis(200), timeouts.get(1)), new Failure(Outcome.EXHAUSTED, 3, last));
		assertThat(this.scheduler.pending()).isZero();
	}

	@Test
	void anAttemptThatCompletesInTimeCancelsItsTimer() {
		CompletableFuture<String> future = execute(timed(3), this::hanging);
		assertThat(this.scheduler.pending()).isOne();
		this.attempts.get(0).complete("ok");
		assertThat(future).isCompletedWithValue("ok");
		assertThat(this.scheduler.scheduled()).singleElement().extracting(Future::isCancelled).isEqualTo(true);
		assertThat(this.scheduler.pending()).isZero();
		assertThat(this.listener.events()).containsExactly(new Success(Outcome.SUCCESS, 1));
	}

	@Test
	void aFailureInTimeCancelsTheTimerAndTheRetryIsTimedAgain() {
		IOException failure = new IOException("in time");
		CompletableFuture<String> future = execute(timed(3), this::hanging);
		this.attempts.get(0).completeExceptionally(failure);
		// The first timer was cancelled: the wait is the only task left.
		assertThat(this.scheduler.pending()).isOne();
		assertThat(this.scheduler.runNext()).isTrue();
		this.attempts.get(1).complete("ok");
		assertThat(future).isCompletedWithValue("ok");
		assertThat(this.scheduler.delays()).containsExactly(TIMEOUT, millis(100), TIMEOUT);
		assertThat(this.scheduler.pending()).isZero();
		assertThat(this.listener.events()).containsExactly(new RetryScheduled(1, millis(100), failure),
				new Success(Outcome.SUCCESS_AFTER_RETRY, 2));
	}

	@Test
	void anAttemptThatCompletesWhileItsTimerIsBeingScheduledCancelsIt() {
		// Another thread completes the attempt between the check that it is still running and the
		// timer's start: the completion saw no timer to cancel, so the scheduling side must.
		ScheduledExecutorService completing = afterSchedule(() -> this.attempts.get(0).complete("ok"));
		CompletableFuture<String> future = this.executor.executeAsync(timed(3), null, this.listener, this::hanging,
				completing);
		assertThat(future).isCompletedWithValue("ok");
		assertThat(this.scheduler.scheduled()).singleElement().extracting(Future::isCancelled).isEqualTo(true);
		assertThat(this.scheduler.pending()).isZero();
	}

	@Test
	void aCallCancelledWhileTheTimerIsBeingScheduledCancelsIt() {
		// The caller cancels on another thread just as attempt 2's timer starts: cancel() saw no
		// timer to cancel, so the scheduling side must.
		AtomicReference<@Nullable Future<?>> call = new AtomicReference<>();
		ScheduledExecutorService cancelling = afterSchedule(() -> {
			Future<?> future = call.get();
			if (future != null && this.attempts.size() == 1) {
				future.cancel(false);
			}
		});
		List<Supplier<CompletableFuture<String>>> script = List.of(
				() -> CompletableFuture.failedFuture(new IOException("first")), this::hanging);
		int[] calls = { 0 };
		CompletableFuture<String> future = this.executor.executeAsync(timed(3), null, this.listener,
				() -> script.get(calls[0]++).get(), cancelling);
		call.set(future);
		assertThat(this.scheduler.runNext()).isTrue();
		assertThat(future).isCancelled();
		assertThat(this.scheduler.delays()).containsExactly(millis(100), TIMEOUT);
		assertThat(this.scheduler.pending()).isZero();
	}

	@Test
	void anAttemptCompletedAtOnceSchedulesNoTimer() {
		CompletableFuture<String> future = execute(timed(3), () -> CompletableFuture.completedFuture("ok"));
		assertThat(future).isCompletedWithValue("ok");
		assertThat(this.scheduler.scheduled()).isEmpty();
	}

	@Test
	void aCompletedStageOfAnotherKindSchedulesNoTimerEither() {
		// A minimal stage cannot be asked isDone(): its completion is seen through its callback.
		CompletableFuture<String> future = execute(timed(3), () -> CompletableFuture.completedStage("ok"));
		assertThat(future).isCompletedWithValue("ok");
		assertThat(this.scheduler.scheduled()).isEmpty();
	}

	@Test
	void withoutAnAttemptTimeoutNothingIsScheduledForAnAttempt() {
		CompletableFuture<String> future = execute(TestPolicies.doublingFrom100ms(3), this::hanging);
		assertThat(this.scheduler.scheduled()).isEmpty();
		this.attempts.get(0).complete("late but fine");
		assertThat(future).isCompletedWithValue("late but fine");
		assertThat(this.scheduler.scheduled()).isEmpty();
	}

	@Test
	void aResultThatComesAfterTheTimeoutIsIgnored() {
		// A minimal stage cannot be completed from outside: its late result must still be ignored.
		CompletableFuture<String> source = new CompletableFuture<>();
		List<CompletionStage<String>> stages = List.of(source.minimalCompletionStage(),
				CompletableFuture.completedFuture("second"));
		int[] calls = { 0 };
		CompletableFuture<String> future = execute(timed(3), () -> stages.get(calls[0]++));
		assertThat(this.scheduler.runNext()).isTrue();
		source.complete("late");
		assertThat(future).isNotDone();
		assertThat(this.scheduler.runNext()).isTrue();
		assertThat(future).isCompletedWithValue("second");
		assertThat(this.listener.ends()).containsExactly(new Success(Outcome.SUCCESS_AFTER_RETRY, 2));
	}

	@Test
	void aPolicyThatAbortsOnTimeoutsEndsTheCallAtTheFirstOne() {
		BackoffPolicy policy = timed(5).toBuilder().abortOn(TimeoutException.class).build();
		CompletableFuture<String> future = execute(policy, this::hanging);
		assertThat(this.scheduler.runAll()).isOne();
		Throwable timeout = failureOf(future);
		assertThat(timeout).isInstanceOf(TimeoutException.class);
		assertThat(this.attempts).hasSize(1);
		assertThat(this.listener.events()).containsExactly(new Failure(Outcome.NOT_RETRYABLE, 1, timeout));
		assertThat(this.scheduler.pending()).isZero();
	}

	@Test
	void aPolicyThatRetriesOnlyOtherFailuresDoesNotRetryATimeout() {
		BackoffPolicy policy = timed(5).toBuilder().retryOn(IOException.class).build();
		CompletableFuture<String> future = execute(policy, this::hanging);
		this.scheduler.runAll();
		assertThat(failureOf(future)).isInstanceOf(TimeoutException.class);
		assertThat(this.attempts).hasSize(1);
		assertThat(this.listener.ends()).singleElement()
			.isInstanceOfSatisfying(Failure.class, (end) -> assertThat(end.outcome()).isEqualTo(Outcome.NOT_RETRYABLE));
	}

	@Test
	void maxElapsedStillBoundsTheCall() {
		// Attempt 1 times out at 2s and waits 100ms; attempt 2 times out at 4.1s, past 3s.
		BackoffPolicy policy = timed(5).toBuilder().maxElapsed(Duration.ofSeconds(3)).build();
		CompletableFuture<String> future = execute(policy, this::hanging);
		this.scheduler.runAll();
		assertThat(this.scheduler.delays()).containsExactly(TIMEOUT, millis(100), TIMEOUT);
		Throwable last = failureOf(future);
		assertThat(last).hasMessage("attempt 2 did not complete within 2s");
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.TIMED_OUT, 2, last));
	}

	@Test
	void cancellingTheCallCancelsTheTimerOfTheAttemptInFlight() {
		CompletableFuture<String> future = execute(timed(3), this::hanging);
		assertThat(future.cancel(false)).isTrue();
		assertThat(this.scheduler.pending()).isZero();
		// The attempt's future belongs to the task: cancelling the call leaves it alone.
		assertThat(this.attempts.get(0)).isNotDone();
		assertThat(this.listener.ends()).singleElement()
			.isInstanceOfSatisfying(Failure.class, (end) -> assertThat(end.outcome()).isEqualTo(Outcome.INTERRUPTED));
	}

	@Test
	void aCallThatTheCallerCompletedEndsWhenTheTimerFiresWithoutTimingTheAttemptOut() {
		CompletableFuture<String> future = execute(timed(3), this::hanging);
		future.complete("the caller's own answer");
		assertThat(this.scheduler.runAll()).isOne();
		assertThat(this.attempts).hasSize(1);
		assertThat(this.attempts.get(0)).isNotDone();
		assertThat(this.listener.ends()).singleElement()
			.isInstanceOfSatisfying(Failure.class, (end) -> assertThat(end.outcome()).isEqualTo(Outcome.INTERRUPTED));
	}

	@Test
	void aTimerRunAsTheSchedulerShutsDownEndsTheCallInterruptedWithoutATimeout() {
		CompletableFuture<String> future = execute(timed(3), this::hanging);
		this.scheduler.shutdown();
		// As BackoffScheduler does with the tasks it holds when the context closes.
		assertThat(this.scheduler.runNext()).isTrue();
		Throwable failure = failureOf(future);
		assertThat(failure).isInstanceOf(RejectedExecutionException.class)
			.hasMessage("The scheduler was shut down while attempt 1 was in flight");
		assertThat(this.attempts.get(0)).isNotDone();
		assertThat(this.listener.events()).containsExactly(new Failure(Outcome.INTERRUPTED, 1, failure));
	}

	@Test
	void aTimerRunAsTheSchedulerShutsDownAfterARetryEndsWithTheEarlierFailure() {
		IOException earlier = new IOException("first");
		CompletableFuture<String> future = execute(timed(3), this::hanging);
		this.attempts.get(0).completeExceptionally(earlier);
		assertThat(this.scheduler.runNext()).isTrue();
		this.scheduler.shutdown();
		assertThat(this.scheduler.runNext()).isTrue();
		assertThat(failureOf(future)).isSameAs(earlier);
		assertThat(earlier.getSuppressed()).singleElement().isInstanceOf(RejectedExecutionException.class);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.INTERRUPTED, 2, earlier));
	}

	@Test
	void aTimerThatCannotBeScheduledEndsTheCallRatherThanLeaveTheAttemptUnbounded() {
		this.scheduler.shutdown();
		CompletableFuture<String> future = execute(timed(3), this::hanging);
		assertThat(failureOf(future)).isInstanceOf(RejectedExecutionException.class);
		this.attempts.get(0).complete("too late");
		assertThat(this.listener.ends()).singleElement()
			.isInstanceOfSatisfying(Failure.class, (end) -> assertThat(end.outcome()).isEqualTo(Outcome.INTERRUPTED));
	}

	@Test
	void aBlockingCallRefusesAPolicyWithAnAttemptTimeout() {
		ScriptedTask<String> task = ScriptedTask.of("never");
		assertThatIllegalArgumentException().isThrownBy(() -> this.executor.execute(timed(3), null, this.listener, task))
			.withMessageStartingWith("A blocking call cannot be given an attemptTimeout (2s): Java cannot stop a "
					+ "thread safely, so the limit would not hold. Set the client's own timeout (connect and read "
					+ "timeouts) and leave attemptTimeout unset, or run the call with executeAsync and a CompletionStage");
		assertThatIllegalArgumentException().isThrownBy(() -> this.executor.call(timed(3), task.callable()));
		assertThatIllegalArgumentException().isThrownBy(() -> this.executor.get(timed(3), task.supplier()));
		assertThat(task.calls()).isZero();
		assertThat(this.listener.events()).isEmpty();
	}

	@Test
	void aSteppedCallGivesTheTimeoutAndTheFailureToReport() {
		BackoffCall call = this.executor.start(timed(3).toBuilder().attemptTimeout(Duration.ofMillis(1500)).build(),
				null, this.listener, null);
		assertThat(call.getAttemptTimeout()).isEqualTo(Duration.ofMillis(1500));
		call.beginAttempt();
		TimeoutException timeout = call.attemptTimedOut();
		assertThat(timeout).hasMessage("attempt 1 did not complete within 1500ms");
		// Retryable by the default classification, reported as the attempt's failure.
		assertThat(call.nextDelay(timeout)).isEqualTo(millis(100));
		assertThat(this.listener.events()).containsExactly(new RetryScheduled(1, millis(100), timeout));
	}

	@Test
	void aSteppedCallWithoutAnAttemptTimeoutHasNoneToReport() {
		BackoffCall call = this.executor.start(TestPolicies.doublingFrom100ms(3), null, this.listener, null);
		assertThat(call.getAttemptTimeout()).isNull();
		assertThatIllegalStateException().isThrownBy(call::attemptTimedOut)
			.withMessageStartingWith("The policy has no attemptTimeout");
	}

	/** @return the test's scheduler, running {@code hook} after each task is scheduled */
	private ScheduledExecutorService afterSchedule(Runnable hook) {
		return (ScheduledExecutorService) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { ScheduledExecutorService.class }, (proxy, method, arguments) -> {
					Object result;
					try {
						result = method.invoke(this.scheduler, arguments);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
					if (method.getName().equals("schedule")) {
						hook.run();
					}
					return result;
				});
	}

	private CompletableFuture<String> execute(BackoffPolicy policy, Supplier<? extends CompletionStage<String>> task) {
		return this.executor.executeAsync(policy, null, this.listener, task, this.scheduler);
	}

	/** @return a new attempt's stage, which completes only when the test completes it */
	private CompletableFuture<String> hanging() {
		CompletableFuture<String> attempt = new CompletableFuture<>();
		this.attempts.add(attempt);
		return attempt;
	}

	/** Waits of 100, 200, 400… ms, no jitter, and a 2s limit per attempt. */
	private static BackoffPolicy timed(int maxAttempts) {
		return TestPolicies.doublingFrom100ms(maxAttempts).toBuilder().attemptTimeout(TIMEOUT).build();
	}

	private static Throwable failureOf(CompletableFuture<?> future) {
		assertThat(future).isCompletedExceptionally();
		return future.handle((result, ex) -> ex).join();
	}

	private static Duration millis(long millis) {
		return Duration.ofMillis(millis);
	}

}
