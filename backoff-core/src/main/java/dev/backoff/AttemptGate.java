package dev.backoff;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The policy's {@link OverloadControls} in front of a non-blocking call's attempt
 * ({@link AsyncCall}, {@link HedgedCall}): the wait for the pace is scheduled, never slept,
 * and a first attempt rejected by admission completes the caller's future with the rejection.
 * Static and called at the top of the runner's {@code run()}, which the scheduler runs again
 * once the pace's wait is over: the attempt then goes without asking twice.
 */
final class AttemptGate {

	private AttemptGate() {
	}

	/**
	 * @param call the call, about to send an attempt
	 * @param future the caller's future
	 * @param runner what sends the attempt, run again after the pace's wait
	 * @param scheduler runs the waits
	 * @return whether the attempt is held: the runner returns, and either runs again after the
	 * wait or the call has ended (rejected); {@code false} to send it now. A hedged call asks under
	 * its lock, where completing its future is safe here: only a first attempt is rejected, before
	 * the caller has the future to follow.
	 */
	static boolean holds(BackoffCall call, CompletableFuture<?> future, RetryTask runner,
			ScheduledExecutorService scheduler) {
		if (call.controls == null) {
			return false;
		}
		long pace;
		try {
			pace = call.beforeAttempt();
		}
		catch (AttemptNotSentException ex) {
			future.completeExceptionally(ex);
			return true;
		}
		if (pace <= 0) {
			return false;
		}
		// Set first: the scheduler may run the runner before schedule returns.
		call.paced = true;
		try {
			scheduler.schedule(runner, pace, TimeUnit.NANOSECONDS);
			return true;
		}
		catch (RejectedExecutionException ex) {
			// The scheduler is shutting down: the runner goes on at once and finds it so.
			call.paced = false;
			return false;
		}
	}

}
