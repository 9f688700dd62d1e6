package dev.backoff;

import java.time.Duration;

import dev.backoff.internal.Durations;
import org.jspecify.annotations.Nullable;

/**
 * The blocking half of {@link BackoffExecutor#execute}, after its first attempt: the loop that
 * sleeps on the calling thread between attempts, and the refusal of an attempt timeout, which
 * a blocking call cannot honour. The non-blocking counterpart is {@link AsyncCall}.
 *
 * <p>Static and called straight from {@code execute}: no state of its own, and no extra frame
 * under a retried attempt (execute, retry, attempt, task), whose stack trace pays for each.
 */
final class BlockingCall {

	private BlockingCall() {
	}

	/** @return why a blocking call refuses a policy with an attempt timeout or hedging */
	static IllegalArgumentException refused(BackoffPolicy policy) {
		Duration attemptTimeout = policy.getAttemptTimeout();
		if (attemptTimeout == null) {
			return new IllegalArgumentException("A blocking call cannot send hedges (maxHedges "
					+ policy.getHedging().getMaxHedges() + "): each copy would hold a thread, and Java cannot stop "
					+ "the losers safely. Leave maxHedges at 0, or run the call with executeAsync and a "
					+ "CompletionStage; policy: " + policy);
		}
		return new IllegalArgumentException("A blocking call cannot be given an attemptTimeout ("
				+ Durations.format(attemptTimeout) + "): Java cannot stop a thread safely, so "
				+ "the limit would not hold. Set the client's own timeout (connect and read timeouts) and leave "
				+ "attemptTimeout unset, or run the call with executeAsync and a CompletionStage; policy: " + policy);
	}

	/**
	 * Runs a call that was started by hand ({@link OverloadControls#execute}): its first attempt
	 * passes the controls too, and is counted as it runs.
	 */
	static <T extends @Nullable Object> T run(BackoffCall call, Sleeper sleeper, BackoffTask<T> task)
			throws Throwable {
		long pace = call.beforeAttempt();
		if (pace > 0) {
			try {
				sleeper.sleep(Duration.ofNanos(pace));
			}
			catch (InterruptedException ex) {
				// Sent at once: the attempt sees the flag, and the caller gets what it does with it.
				Thread.currentThread().interrupt();
			}
		}
		T result;
		try {
			result = call.attempt(task);
		}
		catch (Throwable ex) {
			return loop(call, sleeper, task, ex, null);
		}
		if (!call.isRetryableResult(result)) {
			call.succeed();
			return result;
		}
		return loop(call, sleeper, task, null, result);
	}

	/**
	 * Continues a call whose first attempt, run inline and not yet counted, failed or asked for a retry.
	 */
	static <T extends @Nullable Object> T retry(BackoffCall call, Sleeper sleeper, BackoffTask<T> task,
			@Nullable Throwable failure, @Nullable Object result) throws Throwable {
		call.beginAttempt();
		return loop(call, sleeper, task, failure, result);
	}

	@SuppressWarnings("unchecked")
	private static <T extends @Nullable Object> T loop(BackoffCall call, Sleeper sleeper, BackoffTask<T> task,
			@Nullable Throwable failure, @Nullable Object result) throws Throwable {
		@Nullable Object last = result;
		for (;;) {
			if (failure instanceof InterruptedException) {
				call.interrupt(failure);
				throw failure;
			}
			Duration delay = call.nextDelay(failure);
			if (delay == null) {
				return end(call.end(failure), (T) last);
			}
			long pace;
			try {
				sleeper.sleep(delay);
				// The pace's wait adds to the backoff's, once the dependency has throttled.
				pace = call.beforeAttempt();
				if (pace > 0) {
					sleeper.sleep(Duration.ofNanos(pace));
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				if (failure != null) {
					failure.addSuppressed(ex);
				}
				call.interrupt(failure);
				return end(failure, (T) last);
			}
			if (pace == OverloadControls.NOT_SENT) {
				return end(call.end(failure), (T) last);
			}
			try {
				last = call.attempt(task);
				failure = null;
			}
			catch (Throwable ex) {
				failure = ex;
				continue;
			}
			if (!call.isRetryableResult(last)) {
				call.succeed();
				return (T) last;
			}
		}
	}

	/** Throws the failure the call ended with, or returns the last result if there is none. */
	private static <T extends @Nullable Object> T end(@Nullable Throwable failure, T last) throws Throwable {
		if (failure != null) {
			throw failure;
		}
		return last;
	}

}
