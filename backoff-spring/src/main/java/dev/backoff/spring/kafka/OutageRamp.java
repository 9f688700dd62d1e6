package dev.backoff.spring.kafka;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The ramp of an {@link OutageGate} after a successful probe: the held partitions' records let
 * through at a paced rate, fairly among the partitions that wait, so that a recovering
 * downstream does not meet every partition's backlog at once. Not thread-safe: its gate holds
 * the lock.
 *
 * <p>The rate starts at one partition's pace (a record per probe's round trip) and grows like
 * TCP's slow start, doubling every {@code probeDelay} while it is what holds records back; the
 * first failure cuts it to {@link #BACK_OFF} of itself and ends the slow start, after which it
 * grows by {@link #STEP} of itself per {@code probeDelay}. At most one cut per tenth of
 * {@code probeDelay}: the failures of one overload come together. The ramp is over when less
 * than half the rate went through in each of {@link #QUIET} {@code probeDelay}s in a row (the
 * backlog is drained), or has failed when failures cut the rate below one record per
 * {@code probeDelay}.
 *
 * @param <P> the type of a partition
 */
final class OutageRamp<P> {

	/** The rate's growth per {@code probeDelay} after its first cut. */
	static final double STEP = 0.1;

	/** What is left of the rate after a failure. */
	static final double BACK_OFF = 0.8;

	/** The {@code probeDelay}s in a row with less than half the rate used after which the ramp is over. */
	static final int QUIET = 5;

	private final long probeDelayNanos;

	/** The partitions held back, in the order they first asked, and when each last asked. */
	private final Map<P, Long> waiting = new LinkedHashMap<>();

	/** Records per second, the tokens in hand (at most one) and when they were counted. */
	private double rate;

	private double tokens = 1;

	private long refilledNanos;

	private boolean slowStart = true;

	/** When a record was last held back by the rate, and when the rate was last cut. */
	private long heldBackNanos;

	private long cutNanos;

	/** The current probeDelay-long window, the records let through in it, the quiet windows in a row. */
	private long windowNanos;

	private long windowGrants;

	private long quietWindows;

	/**
	 * @param probeDelayNanos the gate's {@code probeDelay}: the ramp's unit of time
	 * @param roundTripNanos how long the probe took: one partition's pace is a record per round trip
	 * @param now the clock's nanos
	 */
	OutageRamp(long probeDelayNanos, long roundTripNanos, long now) {
		this.probeDelayNanos = probeDelayNanos;
		this.rate = Math.max(minRate(), 1e9 / Math.max(1_000_000, roundTripNanos));
		this.refilledNanos = now;
		this.heldBackNanos = now;
		this.cutNanos = now - probeDelayNanos;
		this.windowNanos = now;
	}

	/**
	 * @param partition a held partition
	 * @param now the clock's nanos
	 * @return whether a record of it may go now: a token is in hand and no partition that has
	 * waited longer is still asking
	 */
	boolean mayDeliver(P partition, long now) {
		refill(now);
		if (this.tokens >= 1 && isNext(partition, now)) {
			this.tokens -= 1;
			this.windowGrants++;
			this.waiting.remove(partition);
			return true;
		}
		this.heldBackNanos = now;
		// A partition asking again keeps its place in the line.
		this.waiting.put(partition, now);
		return false;
	}

	/** Whether the partition is the one that has waited longest, forgetting those that stopped asking. */
	private boolean isNext(P partition, long now) {
		// One that has not asked for two records' time is no longer waiting (delivered elsewhere, or gone).
		long stale = (long) (2e9 / this.rate) + 1_000_000;
		var entries = this.waiting.entrySet().iterator();
		while (entries.hasNext()) {
			Map.Entry<P, Long> first = entries.next();
			if (first.getKey().equals(partition)) {
				return true;
			}
			if (now - first.getValue() <= stale) {
				return false;
			}
			entries.remove();
		}
		return true;
	}

	/**
	 * @param now the clock's nanos
	 * @return the nanos until a partition that is not next in line may ask again: when the
	 * next token comes, or the one after it while the token in hand is kept for the partition
	 * that has waited longest
	 */
	long nanosUntilToken(long now) {
		refill(now);
		double needed = (this.tokens >= 1 && !this.waiting.isEmpty()) ? 2 : 1;
		return (this.tokens >= needed) ? 0 : (long) Math.ceil((needed - this.tokens) / this.rate * 1e9);
	}

	/** A held partition's record succeeded: the rate grows, while it is what holds records back. */
	void succeeded(long now) {
		refill(now);
		if (now - this.heldBackNanos > this.probeDelayNanos) {
			return;
		}
		double perProbeDelay = this.slowStart ? Math.log(2) : Math.log1p(STEP);
		// A success comes every 1/rate seconds, so this grows the rate by e^perProbeDelay per probeDelay.
		this.rate += perProbeDelay * 1e9 / this.probeDelayNanos;
	}

	/**
	 * A held partition's record failed, or a retry was refused: the rate is cut.
	 * @param now the clock's nanos
	 * @return {@code false} when the rate is below one record per {@code probeDelay}: pause again
	 */
	boolean failed(long now) {
		refill(now);
		this.slowStart = false;
		if (now - this.cutNanos >= this.probeDelayNanos / 10) {
			this.cutNanos = now;
			this.rate *= BACK_OFF;
		}
		return this.rate >= minRate();
	}

	/**
	 * @param now the clock's nanos
	 * @return whether the ramp is over: less than half the rate used for {@link #QUIET} windows
	 */
	boolean isOver(long now) {
		refill(now);
		return this.quietWindows >= QUIET;
	}

	void forget(P partition) {
		this.waiting.remove(partition);
	}

	/** @return records per second now */
	double rate() {
		return this.rate;
	}

	private double minRate() {
		return 1e9 / this.probeDelayNanos;
	}

	/** Counts the tokens earned since the last call, and the windows that ended. */
	private void refill(long now) {
		this.tokens = Math.min(1, this.tokens + (now - this.refilledNanos) / 1e9 * this.rate);
		this.refilledNanos = now;
		long windows = (now - this.windowNanos) / this.probeDelayNanos;
		if (windows > 0) {
			// A window is quiet when less than half its rate went through; those after it, with nothing, are too.
			boolean quiet = this.windowGrants < this.rate * this.probeDelayNanos / 2e9;
			this.quietWindows = quiet ? this.quietWindows + windows : windows - 1;
			this.windowNanos += windows * this.probeDelayNanos;
			this.windowGrants = 0;
		}
	}

}
