package dev.backoff.sample.hedging;

import java.time.Duration;
import java.util.List;

import dev.backoff.BackoffPolicy;
import dev.backoff.Jitter;

/**
 * A way to call the slow-tailed downstream: a name for the table, and the policy each call runs
 * under.
 * @param name the table's name of the variant
 * @param policy the policy
 * @param maxRequestsPerCall the most requests one call may send: its {@code maxAttempts}
 */
public record HttpTailVariant(String name, BackoffPolicy policy, int maxRequestsPerCall) {

	/** Retry-only: attempts in all, so that a call fails only when three copies in a row are slow. */
	static final int RETRY_ONLY_ATTEMPTS = 3;

	/** @return one attempt, no hedge: the downstream receives one request per call */
	public static HttpTailVariant none() {
		return new HttpTailVariant("no hedging", BackoffPolicy.builder().maxAttempts(1).build(), 1);
	}

	/**
	 * @param hedgeDelay when to send the next copy
	 * @param maxHedges extra copies at most
	 * @return hedged: its attempts are its copies
	 */
	public static HttpTailVariant hedged(Duration hedgeDelay, int maxHedges) {
		BackoffPolicy policy = BackoffPolicy.builder()
			.maxAttempts(1 + maxHedges)
			.hedgeDelay(hedgeDelay)
			.maxHedges(maxHedges)
			.build();
		return new HttpTailVariant("hedging, maxHedges " + maxHedges, policy, 1 + maxHedges);
	}

	/**
	 * @param attemptTimeout when to give up on an attempt and retry at once
	 * @return retry-only: an attempt still running after the timeout fails and is retried
	 * without a wait (its request is not aborted, only no longer awaited)
	 */
	public static HttpTailVariant retryOnly(Duration attemptTimeout) {
		BackoffPolicy policy = BackoffPolicy.builder()
			.maxAttempts(RETRY_ONLY_ATTEMPTS)
			.baseDelay(Duration.ZERO)
			.jitter(Jitter.NONE)
			.attemptTimeout(attemptTimeout)
			.build();
		return new HttpTailVariant("retry-only, attemptTimeout", policy, RETRY_ONLY_ATTEMPTS);
	}

	/**
	 * @param delay the hedge delay and the retry-only attempt timeout
	 * @return the variants of the table, in its order
	 */
	public static List<HttpTailVariant> all(Duration delay) {
		return List.of(none(), hedged(delay, 1), hedged(delay, 2), retryOnly(delay));
	}

}
