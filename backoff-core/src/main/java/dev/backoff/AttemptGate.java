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

	/** The attempt goes now. */
	static final int SEND = 0;

	/**
	 * The runner returns: it runs again after the pace's wait, or the call has ended (a first
	 * attempt not sent, the caller's future completed with why).
	 */
	static final int HELD = 1;

	/**
	 * A retry not sent ({@link OverloadControls#NOT_SENT}): the runner ends the call with
	 * {@link BackoffCall#end} and completes the caller's future with the last attempt's failure or
	 * result, as when {@link BackoffCall#nextDelay} ends it.
	 */
	static final int NOT_SENT = 2;

	private AttemptGate() {
	}

	/**
	 * @param call the call, about to send an attempt
	 * @param future the caller's future
	 * @param runner what sends the attempt, run again after the pace's wait
	 * @param scheduler runs the waits
	 * @return {@link #SEND}, {@link #HELD} or {@link #NOT_SENT}. A hedged call asks under its lock, where
	 * completing its future is safe here: only a first attempt is rejected so, before the caller has
	 * the future to follow; a retry not sent is ended by the runner, which completes the future after
	 * the lock is released.
	 */
	static int pass(BackoffCall call, CompletableFuture<?> future, RetryTask runner,
			ScheduledExecutorService scheduler) {
		if (call.controls == null) {
			return SEND;
		}
		long pace;
		try {
			pace = call.beforeAttempt();
		}
		catch (AttemptNotSentException ex) {
			future.completeExceptionally(ex);
			return HELD;
		}
		if (pace == OverloadControls.NOT_SENT) {
			return NOT_SENT;
		}
		if (pace <= 0) {
			return SEND;
		}
		// Set first: the scheduler may run the runner before schedule returns.
		call.paced = true;
		try {
			scheduler.schedule(runner, pace, TimeUnit.NANOSECONDS);
			return HELD;
		}
		catch (RejectedExecutionException ex) {
			// The scheduler is shutting down: the runner goes on at once and finds it so.
			call.paced = false;
			return SEND;
		}
	}

}
