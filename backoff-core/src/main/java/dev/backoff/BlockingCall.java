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
	 * Continues a call whose first attempt failed or asked for a retry.
	 */
	@SuppressWarnings("unchecked")
	static <T extends @Nullable Object> T retry(BackoffCall call, Sleeper sleeper, BackoffTask<T> task,
			@Nullable Throwable failure, @Nullable Object result) throws Throwable {
		@Nullable Object last = result;
		call.beginAttempt();
		for (;;) {
			if (failure instanceof InterruptedException) {
				call.interrupt(failure);
				throw failure;
			}
			Duration delay = call.nextDelay(failure);
			if (delay == null) {
				return end(call.end(failure), (T) last);
			}
			try {
				sleeper.sleep(delay);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				if (failure != null) {
					failure.addSuppressed(ex);
				}
				call.interrupt(failure);
				return end(failure, (T) last);
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
