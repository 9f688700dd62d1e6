package dev.backoff;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Hedged requests, for the slow tail of idempotent non-blocking calls: when no copy of a call
 * has answered within {@link #getDelay()} of the last one sent, another copy is sent, up to
 * {@link #getMaxHedges()} extra copies per call; the first successful answer wins and the
 * others are cancelled. Each copy is an attempt: hedges and retries share the policy's
 * {@code maxAttempts} and its {@link RetryBudget} (a hedge is not sent while the budget refuses
 * retries). With an {@code attemptTimeout}, each copy still running after it fails with a
 * {@link java.util.concurrent.TimeoutException}, as an attempt does. See
 * {@link BackoffExecutor#executeAsync}.
 *
 * <p>With a {@link #getPercentile() percentile}, the delay follows the method's own recent
 * answer times instead: each call takes that percentile of them ({@link Latencies}), and the
 * fixed delay while they are too few to tell.
 *
 * <p>Hedges are paid when sent, from the policy's {@link HedgeTokens} where the caller keeps one
 * (Spring keeps one per named policy): they stay within its share of the calls however slow the
 * answers become, and a hedge that finds it empty is held back.
 */
public final class Hedging {

	/** The most extra copies a call may send: gRPC's limit of 5 attempts in all. */
	public static final int MAX_HEDGES_LIMIT = 4;

	static final Hedging NONE = new Hedging(null, 0, 0);

	private final @Nullable Duration delay;

	private final int maxHedges;

	/** 0 when unset. */
	private final double percentile;

	private Hedging(@Nullable Duration delay, int maxHedges, double percentile) {
		this.delay = delay;
		this.maxHedges = maxHedges;
		this.percentile = percentile;
	}

	static Hedging of(@Nullable Duration delay, int maxHedges, @Nullable Double percentile) {
		if (maxHedges < 0 || maxHedges > MAX_HEDGES_LIMIT) {
			throw new InvalidPolicyException("maxHedges", maxHedges, "must be between 0 and {0}", MAX_HEDGES_LIMIT);
		}
		if (delay != null && (delay.isNegative() || delay.isZero())) {
			throw new InvalidPolicyException("hedgeDelay", delay, "must be positive");
		}
		if (maxHedges > 0 && delay == null) {
			throw new InvalidPolicyException("hedgeDelay", null, "must be set when maxHedges is above 0 ({0})", maxHedges);
		}
		if (percentile != null && !(percentile >= 50 && percentile < 100)) {
			// Below the median, most calls would send a copy: that is load, not a cut tail.
			throw new InvalidPolicyException("hedgePercentile", percentile, "must be at least 50 and below 100");
		}
		if (percentile != null && delay == null) {
			throw new InvalidPolicyException("hedgePercentile", percentile,
					"needs a hedgeDelay, the delay while the method's answers are too few to tell");
		}
		return (delay == null && maxHedges == 0) ? NONE
				: new Hedging(delay, maxHedges, (percentile != null) ? percentile : 0);
	}

	/** @return how long to wait for an answer before sending the next copy, or {@code null} when unset */
	public @Nullable Duration getDelay() {
		return this.delay;
	}

	/**
	 * @return the percentile of the method's recent answer times (95 for p95) that is the delay,
	 * or 0 for the fixed {@link #getDelay() delay}
	 */
	public double getPercentile() {
		return this.percentile;
	}

	/** @return the extra copies a call may send: 0 (no hedging) to {@value #MAX_HEDGES_LIMIT} */
	public int getMaxHedges() {
		return this.maxHedges;
	}

	/** @return whether calls send hedges: {@code maxHedges} above 0 */
	public boolean isEnabled() {
		return this.maxHedges > 0;
	}

	@Override
	public String toString() {
		return !isEnabled() ? "" : ", hedgeDelay=" + this.delay + ", maxHedges=" + this.maxHedges
				+ ((this.percentile > 0) ? ", hedgePercentile=" + this.percentile : "");
	}

}
