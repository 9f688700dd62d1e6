package dev.backoff;

import java.util.Locale;

/**
 * How a call made under a {@link BackoffPolicy} ended. Every call ends with exactly one
 * outcome; its {@link #tagValue()} is the {@code outcome} tag of the metrics.
 */
public enum Outcome {

	/** The first attempt succeeded. */
	SUCCESS,

	/** An attempt after at least one retry succeeded. */
	SUCCESS_AFTER_RETRY,

	/** Every allowed attempt failed (or returned a result that asked for a retry). */
	EXHAUSTED,

	/** An attempt failed with an exception that the policy does not retry. */
	NOT_RETRYABLE,

	/** The thread was interrupted, or the retry could not be scheduled, while waiting. */
	INTERRUPTED,

	/**
	 * The next wait would have passed the policy's {@code maxElapsed}, or the server's
	 * {@link RetryAfter} hint asked for a wait beyond the policy's {@code maxRetryAfter}, or the
	 * next attempt's slot at the policy's {@link Pacing pace} is past {@code maxElapsed}, so it was
	 * not sent (for a first attempt, the caller gets an {@link AttemptNotSentException}; for a
	 * retry, the last attempt's failure or result).
	 */
	TIMED_OUT,

	/**
	 * A retry was due, but the policy's {@link RetryBudget} was spent: the dependency has been
	 * failing for many callers, and retrying would only add to its load.
	 */
	BUDGET_EXHAUSTED,

	/**
	 * A retry was due, but the call runs inside an attempt of another retrying call, which
	 * would retry this failure itself: retrying at both levels multiplies the attempts
	 * (three levels of 3 attempts make 27 calls). See {@link Nested}.
	 */
	NESTED,

	/**
	 * The policy's admission ({@link Admission}, client-side throttling) rejected the call's next
	 * attempt locally, unsent: its first (the caller gets an {@link AdmissionRejectedException}) or a
	 * retry (the caller gets the last attempt's failure, the rejection attached as suppressed).
	 */
	ADMISSION_REJECTED;

	private final String tagValue = name().toLowerCase(Locale.ROOT);

	/** @return the lower-case name used as a metric tag, e.g. {@code success_after_retry} */
	public String tagValue() {
		return this.tagValue;
	}

	/** @return whether an attempt succeeded ({@link #SUCCESS} or {@link #SUCCESS_AFTER_RETRY}) */
	public boolean isSuccess() {
		return this == SUCCESS || this == SUCCESS_AFTER_RETRY;
	}

}
