package dev.backoff;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

import org.jspecify.annotations.Nullable;

/**
 * When to retry: how many attempts, and the waits between them. An immutable value, the
 * schedule half of a {@link BackoffPolicy}.
 *
 * <p>{@code maxAttempts} counts <em>all</em> calls, the first included (3 = 1 call + 2
 * retries; 1 = no retry; {@link Integer#MAX_VALUE} = unlimited). Retry {@code n = 1, 2, …}
 * waits a delay drawn by the {@link Jitter} from its ceiling
 * {@code v(n) = min(maxDelay, baseDelay × multiplier^(n−1))}: one formula, in nanoseconds,
 * saturating, behind {@link #ceiling}, {@link #longestDelay}, {@link #worstCaseTotalDelay}
 * and every {@link #delays() sequence}. {@code Math.pow} is within one ulp of the exact
 * power and semi-monotonic by its contract, so the ceilings never decrease.
 *
 * <p>A schedule may also have a {@link #getThrottling() throttling schedule}: the same formula
 * with {@code throttleBaseDelay} and {@code throttleMaxDelay}, from which a retry after a
 * failure classified as throttling draws its wait (the server asked for less load: AWS's SDKs
 * wait from a 1 s base after throttling, 50 ms after other transient errors). The cap is
 * applied before the jitter in both. Its delays are at least the normal ones retry by retry,
 * so the worst case of a call is the throttling schedule's.
 *
 * @see BackoffPolicy.Builder
 */
public final class BackoffSchedule {

	/** Retries summed one by one in a worst case; past them (only a multiplier barely above 1 gets there), a geometric series. */
	private static final int EXACT_TERMS = 1024;

	private final int maxAttempts;

	private final long baseDelayNanos;

	private final long maxDelayNanos;

	private final double multiplier;

	private final Jitter jitter;

	/** The schedule of retries after throttling, or {@code null} when they follow this one. */
	private final @Nullable BackoffSchedule throttling;

	BackoffSchedule(int maxAttempts, @Nullable Duration baseDelay, @Nullable Duration maxDelay, double multiplier,
			@Nullable Jitter jitter, @Nullable Duration throttleBaseDelay, @Nullable Duration throttleMaxDelay) {
		if (maxAttempts < 1) {
			throw new InvalidPolicyException("maxAttempts", maxAttempts,
					"must be at least 1 (it counts every call, the first included)");
		}
		Duration base = requireDuration("baseDelay", baseDelay);
		Duration max = requireDuration("maxDelay", maxDelay);
		if (max.compareTo(base) < 0) {
			throw new InvalidPolicyException("maxDelay", max, "must be at least {0} ({1})",
					new InvalidPolicyException.Setting("baseDelay"), base);
		}
		if (!Double.isFinite(multiplier) || multiplier < 1.0) {
			throw new InvalidPolicyException("multiplier", multiplier,
					"must be a finite number of at least 1 (1 gives a fixed delay)");
		}
		if (jitter == null) {
			throw new InvalidPolicyException("jitter", null, "must be one of {0}", Arrays.toString(Jitter.values()));
		}
		this.maxAttempts = maxAttempts;
		this.baseDelayNanos = base.toNanos();
		this.maxDelayNanos = max.toNanos();
		this.multiplier = multiplier;
		this.jitter = jitter;
		this.throttling = throttling(throttleBaseDelay, throttleMaxDelay);
	}

	/** A throttling schedule: no throttling of its own. */
	private BackoffSchedule(BackoffSchedule normal, Duration base, Duration max) {
		this.maxAttempts = normal.maxAttempts;
		this.baseDelayNanos = base.toNanos();
		this.maxDelayNanos = max.toNanos();
		this.multiplier = normal.multiplier;
		this.jitter = normal.jitter;
		this.throttling = null;
	}

	private @Nullable BackoffSchedule throttling(@Nullable Duration base, @Nullable Duration max) {
		if (base == null) {
			if (max != null) {
				throw new InvalidPolicyException("throttleMaxDelay", max, "needs {0} to be set too",
						new InvalidPolicyException.Setting("throttleBaseDelay"));
			}
			return null;
		}
		requireDuration("throttleBaseDelay", base);
		if (base.toNanos() < this.baseDelayNanos) {
			throw new InvalidPolicyException("throttleBaseDelay", base,
					"must be at least {0} ({1}): a retry after throttling waits longer than another",
					new InvalidPolicyException.Setting("baseDelay"), getBaseDelay());
		}
		// Unset: the normal cap, or the throttling base when that is longer.
		Duration cap = (max != null) ? requireDuration("throttleMaxDelay", max)
				: (base.toNanos() > this.maxDelayNanos) ? base : getMaxDelay();
		if (cap.compareTo(base) < 0) {
			throw new InvalidPolicyException("throttleMaxDelay", cap, "must be at least {0} ({1})",
					new InvalidPolicyException.Setting("throttleBaseDelay"), base);
		}
		if (cap.toNanos() < this.maxDelayNanos) {
			throw new InvalidPolicyException("throttleMaxDelay", cap,
					"must be at least {0} ({1}): a retry after throttling waits longer than another",
					new InvalidPolicyException.Setting("maxDelay"), getMaxDelay());
		}
		return new BackoffSchedule(this, base, cap);
	}

	/**
	 * @param setting the setting's name, for the error
	 * @param value a duration
	 * @return the duration, when it is zero or positive and at most {@link BackoffPolicy#MAX_DURATION}
	 * @throws InvalidPolicyException otherwise
	 */
	static Duration requireDuration(String setting, @Nullable Duration value) {
		if (value == null || value.isNegative()) {
			throw new InvalidPolicyException(setting, value, "must be zero or positive");
		}
		if (value.compareTo(BackoffPolicy.MAX_DURATION) > 0) {
			throw new InvalidPolicyException(setting, value, "must be at most {0} (Long.MAX_VALUE nanoseconds)",
					BackoffPolicy.MAX_DURATION);
		}
		return value;
	}

	/** @return the number of calls allowed, the first included; {@link Integer#MAX_VALUE} is unlimited */
	public int getMaxAttempts() {
		return this.maxAttempts;
	}

	/** @return the number of retries allowed: {@code maxAttempts − 1} */
	public int getMaxRetries() {
		return this.maxAttempts - 1;
	}

	/** @return the first retry's ceiling */
	public Duration getBaseDelay() {
		return Duration.ofNanos(this.baseDelayNanos);
	}

	/** @return the cap of every delay */
	public Duration getMaxDelay() {
		return Duration.ofNanos(this.maxDelayNanos);
	}

	/** @return the factor between consecutive ceilings, at least 1 */
	public double getMultiplier() {
		return this.multiplier;
	}

	/** @return how delays are drawn from their ceilings */
	public Jitter getJitter() {
		return this.jitter;
	}

	/**
	 * @return the schedule that retries after a failure classified as throttling draw their
	 * waits from ({@code throttleBaseDelay}, {@code throttleMaxDelay}, and this schedule's
	 * attempts, multiplier and jitter), or {@code null} when they draw from this one
	 */
	public @Nullable BackoffSchedule getThrottling() {
		return this.throttling;
	}

	/**
	 * The ceiling of retry {@code n}: {@code min(maxDelay, baseDelay × multiplier^(n−1))}.
	 * @param retry the retry number, from 1
	 * @return the ceiling, in {@code [baseDelay, maxDelay]}
	 */
	public Duration ceiling(int retry) {
		return Duration.ofNanos(ceilingNanos(checkRetry(retry)));
	}

	/**
	 * The largest delay retry {@code n} can draw: its ceiling {@code v(n)}, or for decorrelated
	 * jitter {@code min(maxDelay, baseDelay × 3^n)}.
	 * @param retry the retry number, from 1
	 * @return the longest possible wait before that retry
	 */
	public Duration longestDelay(int retry) {
		return Duration.ofNanos(longestNanos(checkRetry(retry)));
	}

	/**
	 * The largest total wait a call can spend before its last attempt: the sum of
	 * {@link #longestDelay(int)} over every retry, of the {@link #getThrottling() throttling
	 * schedule} when there is one (its delays are the longer). Saturates at
	 * {@link BackoffPolicy#MAX_DURATION}.
	 * @return the worst-case total wait
	 */
	public Duration worstCaseTotalDelay() {
		return worstCaseTotalDelay(getMaxRetries());
	}

	/**
	 * The largest total wait before retry {@code retries}: the sum of {@link #longestDelay(int)}
	 * over retries 1 to {@code retries}, of the throttling schedule when there is one.
	 * Saturates at {@link BackoffPolicy#MAX_DURATION}.
	 * @param retries the number of retries, from 0
	 * @return the worst-case total wait of those retries
	 */
	public Duration worstCaseTotalDelay(int retries) {
		return (this.throttling != null) ? this.throttling.worstCaseTotalDelay(retries) : ownWorstCase(retries);
	}

	private Duration ownWorstCase(int retries) {
		int uncapped = Math.min(retries, firstCappedRetry() - 1);
		long total = 0;
		if (uncapped <= EXACT_TERMS) {
			for (int retry = 1; retry <= uncapped; retry++) {
				total = saturatedAdd(total, longestNanos(retry));
			}
		}
		else {
			// The first longest delay times (f^k − 1) / (f − 1), or times k for a fixed delay.
			double factor = growth();
			double first = longestNanos(1);
			double sum = (factor == 1.0) ? first * uncapped : first * (Math.pow(factor, uncapped) - 1) / (factor - 1);
			total = (sum >= Long.MAX_VALUE) ? Long.MAX_VALUE : Math.round(sum);
		}
		long capped = retries - uncapped;
		long rest = (capped > 0 && this.maxDelayNanos > Long.MAX_VALUE / capped) ? Long.MAX_VALUE
				: capped * this.maxDelayNanos;
		return Duration.ofNanos(saturatedAdd(total, rest));
	}

	/**
	 * A fresh, independent sequence of the waits before each retry, drawn with the calling
	 * thread's {@link ThreadLocalRandom}.
	 * @return a new sequence of {@code maxAttempts − 1} delays
	 */
	public BackoffDelays delays() {
		return new BackoffDelays(this, ThreadLocalRandom.current());
	}

	/**
	 * A fresh, independent sequence of the waits before each retry, drawn with the given
	 * generator (for reproducible sequences in tests and simulations). Do not share one seeded
	 * generator across clients: identical draws re-synchronise them.
	 * @param random the source of randomness for this sequence
	 * @return a new sequence of {@code maxAttempts − 1} delays
	 */
	public BackoffDelays delays(RandomGenerator random) {
		return new BackoffDelays(this, Objects.requireNonNull(random, "random must not be null"));
	}

	long baseDelayNanos() {
		return this.baseDelayNanos;
	}

	long maxDelayNanos() {
		return this.maxDelayNanos;
	}

	/** The ceiling of retry {@code n} in nanoseconds: the one formula. */
	long ceilingNanos(int retry) {
		return capped(this.multiplier, retry - 1);
	}

	private long longestNanos(int retry) {
		return (this.jitter == Jitter.DECORRELATED) ? capped(3.0, retry) : ceilingNanos(retry);
	}

	/** The factor between consecutive longest delays. */
	private double growth() {
		return (this.jitter == Jitter.DECORRELATED) ? 3.0 : this.multiplier;
	}

	/** {@code min(maxDelay, baseDelay × factor^exponent)} in nanoseconds, saturating; a zero base stays zero. */
	private long capped(double factor, int exponent) {
		if (this.baseDelayNanos == 0) {
			return 0;
		}
		double nanos = this.baseDelayNanos * Math.pow(factor, exponent);
		return (nanos >= this.maxDelayNanos) ? this.maxDelayNanos : (long) nanos;
	}

	/**
	 * The first retry whose longest delay is {@code maxDelay}, found by bisection as they never
	 * decrease; {@link Integer#MAX_VALUE} (one past the last possible retry) when none is.
	 */
	private int firstCappedRetry() {
		if (longestNanos(Integer.MAX_VALUE - 1) < this.maxDelayNanos) {
			return Integer.MAX_VALUE;
		}
		int below = 0;
		int capped = Integer.MAX_VALUE - 1;
		while (capped - below > 1) {
			int middle = (below + capped) >>> 1;
			if (longestNanos(middle) >= this.maxDelayNanos) {
				capped = middle;
			}
			else {
				below = middle;
			}
		}
		return capped;
	}

	private static int checkRetry(int retry) {
		if (retry < 1) {
			throw new IllegalArgumentException("retry must be at least 1, but was " + retry);
		}
		return retry;
	}

	private static long saturatedAdd(long a, long b) {
		long sum = a + b;
		return (sum < 0) ? Long.MAX_VALUE : sum;
	}

	@Override
	public String toString() {
		return "maxAttempts=" + this.maxAttempts + ", baseDelay=" + getBaseDelay() + ", maxDelay=" + getMaxDelay()
				+ ", multiplier=" + this.multiplier + ", jitter=" + this.jitter
				+ ((this.throttling != null) ? ", throttleBaseDelay=" + this.throttling.getBaseDelay()
						+ ", throttleMaxDelay=" + this.throttling.getMaxDelay() : "");
	}

}
