package dev.backoff;

/**
 * Pacing on throttling: every attempt of a policy waits for its slot at a rate that follows
 * what the dependency allows, in the shape of AWS's adaptive retry mode (a CUBIC-shaped token
 * bucket, aws-sdk-java-v2's {@code RateLimiterTokenBucket}). Dormant, and free, until the first
 * throttling failure; from then on each attempt {@link #acquire() acquires} a slot.
 *
 * <p>A throttling failure cuts the rate to {@value #BETA} of the rate the client was sending at;
 * answers that are not throttling let it grow back along a cubic curve, slowly near the rate
 * at which it was last throttled and faster beyond it, never above twice the rate actually
 * sent. Two of AWS's 2026 fixes (aws-sdk-java-v2 7197: "TPS much lower than server TPS, and
 * unstable") are built in: an attempt reserves its slot, so concurrent callers queue one
 * after the other instead of all going when the first slot frees; and the throttling answers
 * to attempts sent before a cut do not cut again, which would drive the rate far below the
 * server's.
 *
 * <p>Thread-safe: one short lock per call while active; nothing is allocated.
 */
public final class Pacing {

	/** The share of the sending rate kept after a throttling failure (CUBIC's β). */
	static final double BETA = 0.7;

	/** CUBIC's scale: how fast the rate grows back, in attempts per second per second cubed. */
	static final double SCALE = 0.4;

	/** The weight of the newest measurement in the measured sending rate. */
	static final double SMOOTHING = 0.8;

	/** The lowest rate, attempts per second: one attempt every two seconds still goes. */
	static final double MIN_RATE = 0.5;

	/** How long the sending rate is counted before it is measured. */
	static final long MEASURE_NANOS = 500_000_000L;

	/** After a cut, throttling answers within this time answer attempts sent before it. */
	static final long CUT_NANOS = 1_000_000_000L;

	private static final double NANOS_PER_SECOND = 1e9;

	private final NanoClock clock;

	// All guarded by this.
	private boolean active;

	private double rate;

	/** The rate at the last cut: CUBIC's W_max, where growth is slowest. */
	private double lastMax;

	/** Seconds from the last cut to the rate's return to {@link #lastMax} (CUBIC's K). */
	private double plateau;

	private long lastCut;

	/** The earliest time the next attempt may be sent. */
	private long nextSlot;

	private double measured;

	private long measureStart;

	private long sent;

	/** @param clock the time source */
	public Pacing(NanoClock clock) {
		this.clock = clock;
		this.measureStart = clock.nanoTime();
	}

	/**
	 * Reserves the next slot for an attempt.
	 * @return the nanoseconds the attempt must wait before it is sent: 0 while dormant
	 */
	public synchronized long acquire() {
		long now = this.clock.nanoTime();
		this.sent++;
		measure(now);
		if (!this.active) {
			return 0;
		}
		long interval = (long) (NANOS_PER_SECOND / this.rate);
		// One slot's credit at most: a client that was idle may not burst.
		long slot = Math.max(this.nextSlot, now - interval);
		this.nextSlot = slot + interval;
		return Math.max(0, slot - now);
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
		this.plateau = Math.cbrt(this.lastMax * (1 - BETA) / SCALE);
	}

	/** An answer that was not throttling: lets the rate grow. */
	public synchronized void onSuccess() {
		if (!this.active) {
			return;
		}
		long now = this.clock.nanoTime();
		measure(now);
		double since = (now - this.lastCut) / NANOS_PER_SECOND - this.plateau;
		double cubic = SCALE * since * since * since + this.lastMax;
		this.rate = Math.max(MIN_RATE, Math.min(cubic, 2 * Math.max(this.measured, this.rate / 2)));
	}

	/** @return whether a throttling failure has woken the pace */
	public synchronized boolean isActive() {
		return this.active;
	}

	/** @return the attempts per second allowed now; meaningful once {@link #isActive() active} */
	public synchronized double rate() {
		return this.rate;
	}

	private void measure(long now) {
		long elapsed = now - this.measureStart;
		if (elapsed >= MEASURE_NANOS) {
			double current = this.sent * NANOS_PER_SECOND / elapsed;
			this.measured = (this.measured == 0) ? current : current * SMOOTHING + this.measured * (1 - SMOOTHING);
			this.sent = 0;
			this.measureStart = now;
		}
	}

	/** The rate sent since the last measurement, for a first throttle that comes before any. */
	private double sentSoFar(long now) {
		return this.sent * NANOS_PER_SECOND / Math.max(now - this.measureStart, MEASURE_NANOS);
	}

}
