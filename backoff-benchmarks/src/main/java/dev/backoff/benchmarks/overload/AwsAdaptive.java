package dev.backoff.benchmarks.overload;

import dev.backoff.NanoClock;

/**
 * AWS's adaptive retry mode as published before its 2026 fix: a model of aws-sdk-java-v2's
 * {@code RateLimiterTokenBucket} (core/retries, 2023 to July 2026) and of how
 * {@code DefaultAdaptiveRetryStrategy} used it, for the simulation to compare
 * {@link dev.backoff.Pacing} with. Not a library class: only the simulation needs it.
 *
 * <p>The arithmetic is the published one: dormant until the first throttling answer; the
 * measured rate is the answers counted per half second, smoothed 0.8; a throttling answer
 * remembers {@code min(measured, fill rate)} (the measured rate at the first) as the last
 * maximum and cuts the fill rate to 0.7 of it; any other answer sets it to
 * {@code 0.4 (t − K)³ + lastMax}, {@code K = ∛(lastMax × 0.3 / 0.4)}, {@code t} the seconds
 * since the last throttle; every new rate is at most twice the measured rate, the fill rate at
 * least 0.5 a second, and the bucket holds at most one second of it (at least one token).
 *
 * <p>What 7197 fixed is kept as it was (its {@code acquireAsync}, 7149 and 7166, completes only
 * once a token is taken): {@link #delayNanos()} takes a token when one is there, and otherwise
 * returns the time until the bucket holds one without taking it; the strategy then sends the
 * attempt after that delay (added to the backoff's, for a retry) and nothing reserves it. So every
 * attempt that asks while the bucket is empty waits the same short while and they all go
 * together. And every throttling answer cuts the rate, those to attempts sent before the last cut
 * included.
 */
final class AwsAdaptive {

	private static final double MIN_FILL_RATE = 0.5;

	private static final double MIN_CAPACITY = 1.0;

	private static final double SMOOTH = 0.8;

	private static final double BETA = 0.7;

	private static final double SCALE = 0.4;

	private final NanoClock clock;

	private boolean enabled;

	private double fillRate;

	private double maxCapacity;

	private double capacity;

	private double lastRefill = Double.NaN;

	private double measuredRate;

	private double lastRateBucket;

	private long answers;

	private double lastMax;

	private double lastThrottle;

	private double window;

	AwsAdaptive(NanoClock clock) {
		this.clock = clock;
	}

	/**
	 * The strategy's {@code tryAcquire().delay()}: takes a token if the bucket holds one.
	 * @return 0 when a token was taken (or the bucket is dormant), else the nanoseconds until
	 * the bucket holds one, nothing taken
	 */
	long delayNanos() {
		if (!this.enabled) {
			return 0;
		}
		refill();
		if (this.capacity < 1) {
			return (long) ((1 - this.capacity) / this.fillRate * 1e9);
		}
		this.capacity -= 1;
		return 0;
	}

	/** {@code updateRateAfterThrottling}. */
	void onThrottled() {
		double now = seconds();
		measure(now);
		double rate = this.enabled ? Math.min(this.measuredRate, this.fillRate) : this.measuredRate;
		this.lastMax = rate;
		this.window = StrictMath.cbrt(this.lastMax * (1 - BETA) / SCALE);
		this.lastThrottle = now;
		this.enabled = true;
		update(rate * BETA);
	}

	/** {@code updateRateAfterSuccess}. (StrictMath throughout: the report's figures on every JVM.) */
	void onSuccess() {
		double now = seconds();
		measure(now);
		this.window = StrictMath.cbrt(this.lastMax * (1 - BETA) / SCALE);
		double since = now - this.lastThrottle - this.window;
		update(SCALE * since * since * since + this.lastMax);
	}

	/** @return the fill rate, attempts per second */
	double rate() {
		return this.fillRate;
	}

	private void update(double calculated) {
		double rate = Math.min(calculated, 2 * this.measuredRate);
		refill();
		this.fillRate = Math.max(rate, MIN_FILL_RATE);
		this.maxCapacity = Math.max(rate, MIN_CAPACITY);
		this.capacity = Math.min(this.capacity, this.maxCapacity);
	}

	private void refill() {
		double now = seconds();
		if (!Double.isNaN(this.lastRefill)) {
			this.capacity = Math.min(this.maxCapacity, this.capacity + (now - this.lastRefill) * this.fillRate);
		}
		this.lastRefill = now;
	}

	private void measure(double now) {
		this.answers++;
		double bucket = Math.floor(now * 2) / 2;
		if (bucket > this.lastRateBucket) {
			double current = this.answers / (bucket - this.lastRateBucket);
			this.measuredRate = current * SMOOTH + this.measuredRate * (1 - SMOOTH);
			this.answers = 0;
			this.lastRateBucket = bucket;
		}
	}

	private double seconds() {
		return this.clock.nanoTime() / 1e9;
	}

}
