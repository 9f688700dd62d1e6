package dev.backoff;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Asks a policy's {@link RetryRules} about a failure so that a predicate that throws (user
 * code: {@code retryOnException}, {@code throttledByDefault}, the {@code retryAfter} reader)
 * decides as documented instead of ending the call with the predicate's exception: the
 * caller always gets the attempt's own failure. The rules' counterpart of {@link ListenerCalls}.
 *
 * <p>Static and called straight from {@link BackoffCall#nextDelay}, as its own private methods
 * were: no extra frame on the failure path.
 */
final class RuleCalls {

	private RuleCalls() {
	}

	/**
	 * Whether the rules retry the failure. A predicate that throws is a bug in the predicate:
	 * the failure is not retried, and the caller still gets it, with the predicate's exception
	 * attached.
	 */
	static boolean isRetryable(RetryRules rules, Throwable failure) {
		try {
			return rules.isRetryable(failure);
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(ex);
			return false;
		}
	}

	/** Whether a retried failure is throttling; a predicate that throws says it is not. */
	static boolean isThrottled(RetryRules rules, Throwable failure) {
		try {
			return rules.isThrottled(failure);
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/** The server's hint in nanoseconds (saturating), or -1 for none. */
	static long retryAfterNanos(RetryRules rules, Throwable failure) {
		Duration hint;
		try {
			hint = rules.retryAfter(failure);
		}
		catch (RuntimeException ex) {
			// A hint that cannot be read is no hint: it must not cost the call its retries.
			return -1;
		}
		if (hint == null) {
			return -1;
		}
		return (hint.compareTo(BackoffPolicy.MAX_DURATION) >= 0) ? Long.MAX_VALUE : hint.toNanos();
	}

}
