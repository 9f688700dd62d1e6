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
 * TCP's slow start, doubling every {@code probeDelay} while it is what holds records back. A
 * failure ends the slow start and cuts the rate, in the manner of BBR, to what the downstream
 * delivered: the successes per second of about the last half {@code probeDelay}, at most
 * {@link #BACK_OFF} of the rate and at least half of it. The downstream says nothing before it
 * is overloaded, so the calls it shed are the measure of its capacity: a fixed cut would leave
 * it idle when few calls failed. After the slow start the rate grows by a step counted in
 * partitions' paces per {@code probeDelay}: the same step for every instance, not a share of its
 * rate, so that the instances of a group, cut by the same share, converge to equal rates (AIMD)
 * and drain together rather than keep the shares they started with. The step restarts at
 * {@link #FIRST_STEP} after each cut and doubles per {@code probeDelay} without one, up to
 * {@link #STEP} (BIC's and CUBIC's way): slow near the rate that failed, where the group's steps
 * add up to an overload before its failures cut them, fast once the capacity has room. The rate
 * grows only while it is what holds records back and the downstream delivers at least
 * {@link #USED} of it (RFC 7661's validation): a rate the partitions do not use would be room
 * for a burst of their records. At most one cut per tenth of {@code probeDelay}: the failures of
 * one overload come together. The ramp is over when less
 * than half the rate went through in each of {@link #QUIET} {@code probeDelay}s in a row (the
 * backlog is drained), or has failed when failures cut the rate below one record per
 * {@code probeDelay}.
 *
 * @param <P> the type of a partition
 */
final class OutageRamp<P> {

	/** The rate's largest growth per {@code probeDelay} after the slow start, in partitions' paces. */
	static final double STEP = 0.5;

	/** The rate's growth per {@code probeDelay} right after a cut, in partitions' paces. */
	static final double FIRST_STEP = 0.1;

	/** The share of the rate the downstream must deliver for the rate to grow after the slow start. */
	static final double USED = 0.8;

	/** The most of the rate a failure leaves, however many records succeeded. */
	static final double BACK_OFF = 0.9;

	/** The time over which the successes per second are averaged, in {@code probeDelay}s. */
	static final double AVERAGED = 0.5;

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

	/** One partition's pace, records per second: the unit of the rate's growth. */
	private final double pace;

	/** The successes per second, a moving average, when it was last counted, and when the rate last grew. */
	private double succeeded;

	private long succeededNanos;

	private long grownNanos;

	/** The rate averaged as the successes are, so that a growing rate is compared with what it was. */
	private double averageRate;

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
		this.pace = this.rate;
		this.averageRate = this.rate;
		this.succeededNanos = now;
		this.grownNanos = now;
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

	/** A held partition's record succeeded: counted, and the rate grows, while it is what holds records back. */
	void succeeded(long now) {
		refill(now);
		this.succeeded = succeededPerSecond(now) + 1e9 / (AVERAGED * this.probeDelayNanos);
		this.succeededNanos = now;
		grow(now);
		if (this.slowStart && now - this.heldBackNanos <= this.probeDelayNanos) {
			// A success comes every 1/rate seconds, so this doubles the rate per probeDelay.
			this.rate += Math.log(2) * 1e9 / this.probeDelayNanos;
		}
	}

	/** The successes per second: an exponentially weighted average over {@link #AVERAGED} probeDelays. */
	private double succeededPerSecond(long now) {
		return this.succeeded * Math.exp(-(now - this.succeededNanos) / (AVERAGED * this.probeDelayNanos));
	}

	/**
	 * After the slow start: the growth since the last call, while the rate is what holds records
	 * back and the downstream delivers most of it; by the step at the middle of the interval.
	 */
	private void grow(long now) {
		long elapsed = now - this.grownNanos;
		this.grownNanos = now;
		this.averageRate += (this.rate - this.averageRate)
				* (1 - Math.exp(-elapsed / (AVERAGED * this.probeDelayNanos)));
		if (!this.slowStart && now - this.heldBackNanos <= this.probeDelayNanos
				&& succeededPerSecond(now) >= USED * this.averageRate) {
			double sinceCut = (now - elapsed / 2.0 - this.cutNanos) / this.probeDelayNanos;
			double step = Math.min(STEP, FIRST_STEP * Math.pow(2, sinceCut));
			this.rate += step * this.pace * elapsed / this.probeDelayNanos;
		}
	}

	/**
	 * A held partition's record failed, or a retry was refused: the rate is cut.
	 * @param now the clock's nanos
	 * @return {@code false} when the rate is below one record per {@code probeDelay}: pause again
	 */
	boolean failed(long now) {
		refill(now);
		grow(now);
		this.slowStart = false;
		if (now - this.cutNanos >= this.probeDelayNanos / 10) {
			this.cutNanos = now;
			this.rate = Math.min(this.rate * BACK_OFF, Math.max(succeededPerSecond(now), this.rate / 2));
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
