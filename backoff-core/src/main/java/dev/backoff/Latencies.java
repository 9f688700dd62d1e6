package dev.backoff;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * One method's recent answer times, from which its hedged calls take their hedge delay when the
 * policy gives it as a {@link Hedging#getPercentile() percentile}: a delay that follows the
 * method's own latency does not drift out of date as a fixed one does. Kept by whoever runs the
 * method's calls, one per method, and shared by them; must be thread-safe. Spring's
 * {@code backoff-spring} keeps one per method in a Micrometer histogram.
 * @see BackoffExecutor#executeAsync(BackoffCall, Latencies, HedgeTokens, java.util.function.Supplier,
 * java.util.concurrent.ScheduledExecutorService)
 */
public interface Latencies {

	/**
	 * @param percentile the policy's, 95 for p95
	 * @return that percentile of the recent answer times, or {@code null} while they are too
	 * few to tell: the call then waits the policy's fixed {@code hedgeDelay}
	 */
	@Nullable Duration percentile(double percentile);

	/**
	 * Records how long a hedged call waited for its successful answer, from its first copy
	 * (of the round, after a retry's wait): when a hedge won, that includes the hedge delay, so
	 * that the slow answers the hedges cut short still count as slow.
	 * @param nanos the time from the first copy to the answer
	 */
	void record(long nanos);

}
