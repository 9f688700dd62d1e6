package dev.backoff;

import java.util.concurrent.atomic.LongAdder;

/**
 * Pacing on throttling: every attempt of a policy waits for its slot at a rate that follows
 * what the dependency allows, in the shape of AWS's adaptive retry mode (a CUBIC-shaped token
 * bucket, aws-sdk-java-v2's {@code RateLimiterTokenBucket}). Dormant, and free, until the first
 * throttling failure; from then on each attempt {@link #acquire() acquires} a slot.
 *
 * <p>A throttling failure cuts the rate to {@value #BETA} of the rate the client was sending at
 * (the lower of the rate measured and the pace's own); answers that are not throttling let it
 * grow back along a cubic curve: back to the rate it was cut from after
 * {@code K = ∛((1 − β) / scale)} seconds (4.2 s), slowly around it, faster beyond it, never
 * above twice the rate measured.
 *
 * <p>Where this differs from AWS's constants (β 0.7, scale 0.4 attempts per second per second
 * cubed), it was measured in backoff-benchmarks' overload simulation (docs/overload-report.md),
 * offered twice the capacity of a server: with AWS's constants (and slots reserved), 10 and 100
 * client instances sent 16 and 31 % more than it allows, all of it answered 429; with these, 4 and
 * 17 %, at the same goodput. The cut is 15 %, the growth a share of the rate cut from (an instance
 * sending 1 a second probes as gently as one sending 100: AWS's absolute growth made the many
 * small instances overshoot most), and the sending rate is measured over at least
 * {@value #MIN_SENT} attempts. As in 7197's fix (its
 * {@code acquireAsync}, 7149 and 7166), an attempt reserves its slot, so concurrent callers queue
 * one after the other instead of all going when the first slot frees. And, measured here too, the
 * throttling answers within {@value #CUT_MILLIS} ms of a cut, to attempts sent before it, do not
 * cut again.
 *
 * <p>Thread-safe. While dormant an attempt only counts itself (no lock, but twice a second to
 * measure the rate sent); once active, one short lock per call. Nothing is allocated per call.
 */
public final class Pacing {

	/** The share of the sending rate kept after a throttling failure (CUBIC's β; AWS's is 0.7). */
	static final double BETA = 0.85;

	/**
	 * How fast the rate grows, as a share of the rate it was cut from per second cubed (AWS's
	 * 0.4 is in attempts per second, whatever the rate).
	 */
	static final double SCALE = 0.002;

	/** The weight of the newest measurement in the measured sending rate (AWS's). */
	static final double SMOOTHING = 0.8;

	/** The lowest rate, attempts per second (AWS's): one attempt every two seconds still goes. */
	static final double MIN_RATE = 0.5;

	/** The sending rate is measured over at least this long (AWS's half second)… */
	static final long MEASURE_NANOS = 500_000_000L;

	/** …and at least this many attempts, so that a slow client's rate is not noise. */
	static final long MIN_SENT = 10;

	/** After a cut, throttling answers within this time answer attempts sent before it. */
	static final long CUT_MILLIS = 1000;

	private static final long CUT_NANOS = CUT_MILLIS * 1_000_000L;

	/**
	 * Seconds from a cut to the rate's return to where it was cut from (CUBIC's K); StrictMath,
	 * so that it is the same to the last bit on every JVM, and the simulation's report with it.
	 */
	static final double PLATEAU = StrictMath.cbrt((1 - BETA) / SCALE);

	private static final double NANOS_PER_SECOND = 1e9;

	private final NanoClock clock;

	/** Written under the lock, read without it: once true, it stays so. */
	private volatile boolean active;

	// All guarded by this, but for the counters below.
	private double rate;

	/** The rate at the last cut: CUBIC's W_max, where growth is slowest. */
	private double lastMax;

	private long lastCut;

	/** The earliest time the next attempt may be sent. */
	private long nextSlot;

	private double measured;

	/** When the attempts now in {@link #sent} started being counted; written under the lock. */
	private volatile long measureStart;

	/** The attempts since {@link #measureStart}: counted without the lock while dormant. */
	private final LongAdder sent = new LongAdder();

	/** @param clock the time source */
	public Pacing(NanoClock clock) {
		this.clock = clock;
		this.measureStart = clock.nanoTime();
	}

	/**
	 * Reserves the next slot for an attempt.
	 * @return the nanoseconds the attempt must wait before it is sent: 0 while dormant
	 */
	public long acquire() {
		return acquire(Long.MAX_VALUE);
	}

	/**
	 * Reserves the next slot for an attempt, unless it is further away than the attempt can
	 * wait: a call that must end before its slot takes none, so the slot goes to another.
	 * @param maxWaitNanos the longest wait the attempt accepts
	 * @return the nanoseconds the attempt must wait before it is sent (0 while dormant), or
	 * -1 when that would be longer than {@code maxWaitNanos}: nothing is reserved
	 */
	public long acquire(long maxWaitNanos) {
		if (!this.active) {
			long now = this.clock.nanoTime();
			this.sent.increment();
			if (now - this.measureStart >= MEASURE_NANOS) {
				synchronized (this) {
					measure(now);
				}
			}
			// One racing the first throttling failure goes unpaced, as it would have a moment earlier.
			return 0;
		}
		return reserve(maxWaitNanos);
	}

	private synchronized long reserve(long maxWaitNanos) {
		long now = this.clock.nanoTime();
		long interval = (long) (NANOS_PER_SECOND / this.rate);
		// One slot's credit at most: a client that was idle may not burst.
		long slot = Math.max(this.nextSlot, now - interval);
		long wait = Math.max(0, slot - now);
		if (wait > maxWaitNanos) {
			return -1;
		}
		this.sent.increment();
		measure(now);
		this.nextSlot = slot + interval;
		return wait;
	}

	/**
	 * Puts the pace to sleep again, as it was new, until the next throttling failure: for tests
	 * that each start from a dependency that has not throttled, whatever an earlier test made it see.
	 */
	public synchronized void reset() {
		this.active = false;
		this.rate = 0;
		this.lastMax = 0;
		this.lastCut = 0;
		this.nextSlot = 0;
		this.measured = 0;
		this.sent.reset();
		this.measureStart = this.clock.nanoTime();
	}

	/** A throttling failure: wakes the pace, or cuts its rate. */
	public synchronized void onThrottled() {
		long now = this.clock.nanoTime();
		measure(now);
		double sending = (this.measured > 0) ? this.measured : sentSoFar(now);
		if (!this.active) {
			this.active = true;
			this.nextSlot = now;
			this.lastMax = Math.max(MIN_RATE, sending);
		}
		else if (now - this.lastCut < CUT_NANOS) {
			return;
		}
		else {
			this.lastMax = Math.max(MIN_RATE, Math.min(sending, this.rate));
		}
		this.lastCut = now;
		this.rate = Math.max(MIN_RATE, this.lastMax * BETA);
	}

	/** An answer that was not throttling: lets the rate grow. */
	public void onSuccess() {
		if (this.active) {
			grow();
		}
	}

	private synchronized void grow() {
		long now = this.clock.nanoTime();
		measure(now);
		double since = (now - this.lastCut) / NANOS_PER_SECOND - PLATEAU;
		double cubic = this.lastMax * (1 + SCALE * since * since * since);
		this.rate = Math.max(MIN_RATE, Math.min(cubic, 2 * Math.max(this.measured, this.rate / 2)));
	}

	/** @return whether a throttling failure has woken the pace */
	public boolean isActive() {
		return this.active;
	}

	/** @return the attempts per second allowed now; meaningful once {@link #isActive() active} */
	public synchronized double rate() {
		return this.rate;
	}

	/** Measures the rate sent, once it has been counted long enough; holds the lock. */
	private void measure(long now) {
		long elapsed = now - this.measureStart;
		long count = this.sent.sum();
		if (elapsed >= MEASURE_NANOS && count >= MIN_SENT) {
			double current = count * NANOS_PER_SECOND / elapsed;
			this.measured = (this.measured == 0) ? current : current * SMOOTHING + this.measured * (1 - SMOOTHING);
			// Not reset: an attempt counted meanwhile, without the lock, stays for the next.
			this.sent.add(-count);
			this.measureStart = now;
		}
	}

	/** The rate sent since the last measurement, for a first throttle that comes before any. */
	private double sentSoFar(long now) {
		return this.sent.sum() * NANOS_PER_SECOND / Math.max(now - this.measureStart, MEASURE_NANOS);
	}

}
