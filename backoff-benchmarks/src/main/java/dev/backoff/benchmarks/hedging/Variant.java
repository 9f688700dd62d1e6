package dev.backoff.benchmarks.hedging;

import java.time.Duration;

import dev.backoff.BackoffPolicy;
import dev.backoff.benchmarks.hedging.HedgingModel.Scenario;

/**
 * The client's policies that {@link HedgingModel} compares, all with the scenario's max
 * attempts: none against the tail, hedges after a delay at the service's 95th or 99th
 * percentile, and, at the same delays, an attempt timeout followed by a retry.
 */
public enum Variant {

	/** One attempt per call: the service never fails, so nothing is retried. */
	NONE("no hedging", 0, 0, false),

	/** A hedge when no answer came within the service's p95. */
	HEDGE_P95("hedge at p95, 1 hedge", 95, 1, false),

	/** Up to two hedges, each when no answer came within the service's p95 of the last copy. */
	HEDGE_P95_TWICE("hedge at p95, 2 hedges", 95, 2, false),

	/** A hedge when no answer came within the service's p99. */
	HEDGE_P99("hedge at p99, 1 hedge", 99, 1, false),

	/** Up to two hedges, each after the service's p99. */
	HEDGE_P99_TWICE("hedge at p99, 2 hedges", 99, 2, false),

	/**
	 * Retry-only: an attempt timeout at the service's p95, then a retry at once (base delay 0,
	 * the retry's best case), the attempt cut off.
	 */
	RETRY_P95("timeout at p95, retry", 95, 0, true),

	/** Retry-only, with the attempt timeout at the service's p99. */
	RETRY_P99("timeout at p99, retry", 99, 0, true);

	private final String label;

	private final double percentile;

	private final int maxHedges;

	private final boolean retryOnly;

	Variant(String label, double percentile, int maxHedges, boolean retryOnly) {
		this.label = label;
		this.percentile = percentile;
		this.maxHedges = maxHedges;
		this.retryOnly = retryOnly;
	}

	/** @return the name in the table, the CSV and the chart */
	public String label() {
		return this.label;
	}

	/** @return the extra copies a call may send */
	public int maxHedges() {
		return this.maxHedges;
	}

	/** @return whether slow attempts are cut off and retried rather than hedged */
	public boolean isRetryOnly() {
		return this.retryOnly;
	}

	/**
	 * @param scenario the scenario
	 * @return the hedge delay or attempt timeout, the service's percentile in whole
	 * milliseconds
	 * @throws IllegalStateException for {@link #NONE}, which has neither
	 */
	public Duration delay(Scenario scenario) {
		if (this.percentile == 0) {
			throw new IllegalStateException(this + " has no delay");
		}
		return scenario.delayAt(this.percentile);
	}

	/** @return whether the variant has a hedge delay or an attempt timeout */
	public boolean hasDelay() {
		return this.percentile > 0;
	}

	/**
	 * @param scenario the scenario
	 * @return the policy of the variant
	 */
	public BackoffPolicy policy(Scenario scenario) {
		BackoffPolicy.Builder builder = BackoffPolicy.builder().maxAttempts(scenario.maxAttempts());
		if (this.retryOnly) {
			return builder.attemptTimeout(delay(scenario)).baseDelay(Duration.ZERO).build();
		}
		if (this.maxHedges > 0) {
			return builder.hedgeDelay(delay(scenario)).maxHedges(this.maxHedges).build();
		}
		return builder.build();
	}

}
