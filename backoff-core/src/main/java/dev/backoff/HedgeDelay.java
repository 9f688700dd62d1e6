package dev.backoff;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A hedged call's wait before each next copy: the policy's fixed {@code hedgeDelay}, or, with a
 * {@link Hedging#getPercentile() percentile}, that percentile of the method's {@link Latencies}
 * as each round starts, the round's answer time then recorded in them. Used under the call's lock.
 */
final class HedgeDelay {

	private final long fixedNanos;

	private final double percentile;

	private final @Nullable Latencies latencies;

	private final NanoClock clock;

	private long roundStart;

	HedgeDelay(BackoffCall call, @Nullable Latencies latencies, NanoClock clock) {
		Hedging hedging = call.getPolicy().getHedging();
		Duration delay = hedging.getDelay();
		this.fixedNanos = (delay != null) ? delay.toNanos() : Long.MAX_VALUE;
		this.percentile = hedging.getPercentile();
		if (this.percentile > 0 && latencies == null) {
			throw call.abort(new IllegalArgumentException("hedgePercentile " + this.percentile + " takes the hedge "
					+ "delay from the method's recent answer times: start the call and pass its Latencies to "
					+ "executeAsync(call, latencies, hedgeTokens, task, scheduler), or leave hedgePercentile unset"));
		}
		this.latencies = (this.percentile > 0) ? latencies : null;
		this.clock = clock;
	}

	/** @return the wait before each hedge of the round whose first copy is being sent */
	long startRound() {
		Latencies latencies = this.latencies;
		if (latencies == null) {
			return this.fixedNanos;
		}
		this.roundStart = this.clock.nanoTime();
		Duration recent;
		try {
			recent = latencies.percentile(this.percentile);
		}
		catch (Throwable ex) {
			// Nothing that keeps the times may change the call: it waits the fixed delay.
			ListenerCalls.failed(latencies, "Latencies", "percentile", ex);
			recent = null;
		}
		return (recent != null && !recent.isNegative() && !recent.isZero()) ? recent.toNanos() : this.fixedNanos;
	}

	/** The round's copy that answered won the call. */
	void answered() {
		Latencies latencies = this.latencies;
		if (latencies != null) {
			try {
				latencies.record(this.clock.nanoTime() - this.roundStart);
			}
			catch (Throwable ex) {
				// Nothing that keeps the times may change the call's result.
				ListenerCalls.failed(latencies, "Latencies", "record", ex);
			}
		}
	}

}
