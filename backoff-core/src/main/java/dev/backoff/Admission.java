package dev.backoff;

import java.time.Duration;
import java.util.Arrays;

/**
 * Client-side throttling, as in Google's SRE book ("Handling Overload"): rejects an attempt
 * locally, before it is sent, with probability
 * {@code max(0, (requests − ratio × accepts) / (requests + 1))} over a sliding window, capped
 * at {@code maxRejection}. While the dependency accepts more than {@code 1 / ratio} of what
 * is sent nothing is rejected; when it rejects everything, about {@code 1 − maxRejection} of
 * the attempts still go, to find out when it has recovered.
 *
 * <p>In the window, {@code requests} counts the attempts {@link #admit() admitted} (sent),
 * {@code accepts} those the dependency {@link #accepted() accepted}; an attempt rejected
 * locally is not an attempt and counts as neither. (The SRE book counts it as a request: then
 * the probability stays up until the rejections have left the window, where here it falls as
 * soon as the attempts sent are accepted again.)
 *
 * <p>A documented deviation from the SRE book, so that it reacts within an outage: the same
 * formula is also evaluated over the most recent {@value #RECENT_MILLIS} ms (a ring of
 * {@value #RECENT_BUCKETS} buckets, or the window if shorter), there counting an attempt
 * rejected locally as a request as the book does, and the larger of the two probabilities
 * is used, capped at {@code maxRejection}. Over two minutes the successes before an outage
 * outweigh its failures for about a minute, so the window alone rejects nothing during a
 * short one; the recent horizon rejects up to {@code n / (n + 1)} once its {@code n}
 * requests all fail (it holds no accepts from before the outage after {@value #RECENT_MILLIS}
 * ms), and holds no failure of it {@value #RECENT_MILLIS} ms after its end. Counting its own
 * rejections keeps {@code n} up while it rejects; the rejections in it then slow the recovery
 * by about as long as the horizon.
 *
 * <p>The window is a ring of {@value #BUCKETS} buckets, so it slides one bucket
 * ({@code window / }{@value #BUCKETS}) at a time. Thread-safe; nothing is allocated per call.
 */
public final class Admission {

	/** Default {@code ratio} (the SRE book's K): throttle once fewer than half the attempts are accepted. */
	public static final double DEFAULT_RATIO = 2.0;

	/** Default {@code window}: the SRE book's two minutes. */
	public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(2);

	/** Default {@code maxRejection}: one attempt in ten still goes while everything fails. */
	public static final double DEFAULT_MAX_REJECTION = 0.9;

	/** The buckets the window is kept in: 2 s each for the default two minutes. */
	static final int BUCKETS = 60;

	/** The recent horizon: the best of 0.7, 1, 1.5, 2 and 3 s in the overload simulation (docs/overload-safety.md). */
	static final long RECENT_MILLIS = 1000;

	/** The buckets the recent horizon is kept in: 100 ms each. */
	static final int RECENT_BUCKETS = 10;

	private final double ratio;

	private final double maxRejection;

	private final long bucketNanos;

	private final NanoClock clock;

	private final RandomSource random;

	// Guarded by this: the window's counts, and the short horizon's.
	private final Ring window;

	private final Ring recent;

	/**
	 * @param ratio the SRE book's K: at least 1 (1 throttles as soon as anything fails, 2 once
	 * half fails)
	 * @param window how far back requests and accepts are counted: at least
	 * {@value #BUCKETS} ms
	 * @param maxRejection the largest share of attempts rejected locally: at least 0 and less
	 * than 1, so that some attempts always find out that the dependency has recovered
	 * @param clock the time source
	 * @param random the randomness each decision draws from
	 * @throws InvalidPolicyException naming the setting, the value and the rule
	 */
	public Admission(double ratio, Duration window, double maxRejection, NanoClock clock, RandomSource random) {
		if (!(ratio >= 1 && ratio <= 1000)) {
			throw new InvalidPolicyException("admission.ratio", ratio, "must be at least 1 and at most 1000");
		}
		if (window.compareTo(Duration.ofMillis(BUCKETS)) < 0) {
			throw new InvalidPolicyException("admission.window", window, "must be at least " + BUCKETS + "ms");
		}
		if (!(maxRejection >= 0 && maxRejection < 1)) {
			throw new InvalidPolicyException("admission.maxRejection", maxRejection,
					"must be at least 0 and less than 1 (some attempts must go, to see the recovery)");
		}
		this.ratio = ratio;
		this.maxRejection = maxRejection;
		this.bucketNanos = saturatedNanos(window) / BUCKETS;
		this.clock = clock;
		this.random = random;
		long now = clock.nanoTime();
		this.window = new Ring(BUCKETS, this.bucketNanos, now);
		long recentNanos = Math.min(RECENT_MILLIS * 1_000_000L, this.bucketNanos * BUCKETS);
		this.recent = new Ring(RECENT_BUCKETS, Math.max(1, recentNanos / RECENT_BUCKETS), now);
	}

	/**
	 * Decides whether an attempt may be sent. An admitted attempt counts as a request; a
	 * rejected one counts as nothing in the window, as a request in the recent horizon.
	 * @return {@code true} to send the attempt, {@code false} to fail it locally, unsent
	 */
	public boolean admit() {
		double probability;
		synchronized (this) {
			long now = this.clock.nanoTime();
			probability = probability(now);
			if (probability <= 0) {
				countRequest(now);
				return true;
			}
		}
		// Drawn outside the lock: a generator may be the caller's own (ThreadLocalRandom).
		if (this.random.generator().nextDouble() < probability) {
			synchronized (this) {
				this.recent.request(this.clock.nanoTime());
			}
			return false;
		}
		synchronized (this) {
			countRequest(this.clock.nanoTime());
		}
		return true;
	}

	/** Counts an accept: an attempt that was sent was accepted by the dependency. */
	public synchronized void accepted() {
		long now = this.clock.nanoTime();
		this.window.accept(now);
		this.recent.accept(now);
	}

	/**
	 * Forgets every request and accept counted, as it was new: for tests that each start from
	 * a dependency that has not failed, whatever an earlier test made it see.
	 */
	public synchronized void reset() {
		long now = this.clock.nanoTime();
		this.window.clear(now);
		this.recent.clear(now);
	}

	/** @return the probability that an attempt is rejected locally now, for a gauge */
	public synchronized double rejectionProbability() {
		return probability(this.clock.nanoTime());
	}

	/** @return {@code ratio} (K) */
	public double getRatio() {
		return this.ratio;
	}

	/** @return the window's length */
	public Duration getWindow() {
		return Duration.ofNanos(this.bucketNanos * BUCKETS);
	}

	/** @return the largest share of attempts rejected locally */
	public double getMaxRejection() {
		return this.maxRejection;
	}

	private double probability(long now) {
		this.window.slide(now);
		this.recent.slide(now);
		double probability = Math.max(this.window.probability(this.ratio), this.recent.probability(this.ratio));
		return Math.min(this.maxRejection, probability);
	}

	private void countRequest(long now) {
		this.window.request(now);
		this.recent.request(now);
	}

	private static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

	/** Requests and accepts over a ring of buckets, sliding one bucket at a time; guarded by its Admission. */
	private static final class Ring {

		private final long[] requests;

		private final long[] accepts;

		private final long bucketNanos;

		// The bucket the counts were last added to, and their sums over the ring.
		private long bucket;

		private long totalRequests;

		private long totalAccepts;

		Ring(int buckets, long bucketNanos, long now) {
			this.requests = new long[buckets];
			this.accepts = new long[buckets];
			this.bucketNanos = bucketNanos;
			this.bucket = Math.floorDiv(now, bucketNanos);
		}

		double probability(double ratio) {
			double requests = this.totalRequests;
			double excess = requests - ratio * this.totalAccepts;
			return (excess <= 0) ? 0 : excess / (requests + 1);
		}

		void request(long now) {
			slide(now);
			this.requests[index()]++;
			this.totalRequests++;
		}

		void accept(long now) {
			slide(now);
			this.accepts[index()]++;
			this.totalAccepts++;
		}

		/** Empties every bucket, the ring at now. */
		void clear(long now) {
			Arrays.fill(this.requests, 0);
			Arrays.fill(this.accepts, 0);
			this.totalRequests = 0;
			this.totalAccepts = 0;
			this.bucket = Math.floorDiv(now, this.bucketNanos);
		}

		int index() {
			return (int) Math.floorMod(this.bucket, (long) this.requests.length);
		}

		/** Moves the ring to now, emptying the buckets that fell out of it. */
		void slide(long nanos) {
			long now = Math.floorDiv(nanos, this.bucketNanos);
			long steps = now - this.bucket;
			if (steps <= 0) {
				return;
			}
			if (steps >= this.requests.length) {
				clear(nanos);
				return;
			}
			for (long b = this.bucket + 1; b <= now; b++) {
				int i = (int) Math.floorMod(b, (long) this.requests.length);
				this.totalRequests -= this.requests[i];
				this.totalAccepts -= this.accepts[i];
				this.requests[i] = 0;
				this.accepts[i] = 0;
			}
			this.bucket = now;
		}

	}

}
