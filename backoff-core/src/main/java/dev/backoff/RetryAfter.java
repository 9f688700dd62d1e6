package dev.backoff;

import java.time.Duration;

import dev.backoff.internal.CauseChain;
import org.jspecify.annotations.Nullable;

/**
 * A failure that carries the server's hint of how long to wait before the next attempt, such
 * as an HTTP {@code Retry-After} header. Implement it on your own exceptions; the Spring
 * integration also reads Spring's HTTP client exceptions. A policy then waits
 * {@code max(computed delay, hint)}, and ends the call at once when the hint is beyond its
 * {@link BackoffPolicy#getMaxRetryAfter() maxRetryAfter} or its remaining {@code maxElapsed}.
 */
public interface RetryAfter {

	/** @return how long the server asked to wait, or {@code null} when it gave no hint */
	@Nullable Duration getRetryAfter();

	/**
	 * The hint of the first failure along the cause chain that implements {@link RetryAfter}
	 * and gives one: the policies' default {@link BackoffPolicy.Builder#retryAfter source}.
	 * @param failure an attempt's failure
	 * @return the hint, or {@code null} for none
	 */
	static @Nullable Duration of(Throwable failure) {
		return CauseChain.first(failure, (current) -> (current instanceof RetryAfter hinted) ? hinted.getRetryAfter() : null);
	}

}
