package dev.backoff;

import java.util.random.RandomGenerator;

/**
 * How a retry's wait is drawn from its ceiling, after Marc Brooker's "Exponential Backoff
 * And Jitter" (AWS Architecture Blog, 2015).
 *
 * <p>For retry {@code n = 1, 2, …} the ceiling is
 * {@code v(n) = min(maxDelay, baseDelay × multiplier^(n−1))}, and the wait is:
 * <table>
 * <caption>Delay before retry n</caption>
 * <tr><th>jitter</th><th>delay</th></tr>
 * <tr><td>{@link #NONE}</td><td>{@code v(n)}</td></tr>
 * <tr><td>{@link #FULL}</td><td>{@code uniform(0, v(n))}</td></tr>
 * <tr><td>{@link #EQUAL}</td><td>{@code v(n)/2 + uniform(0, v(n)/2)}</td></tr>
 * <tr><td>{@link #DECORRELATED}</td><td>{@code d(n) = min(maxDelay, uniform(baseDelay, 3 × d(n−1)))},
 * {@code d(0) = baseDelay}; ignores the multiplier</td></tr>
 * </table>
 * All arithmetic is in nanoseconds and saturates: a delay is always in
 * {@code [0, maxDelay]}, whatever the retry number.
 *
 * @see BackoffSchedule#delays()
 */
public enum Jitter {

	/**
	 * No randomness: the capped exponential ceiling itself (multiplier 1 gives a fixed delay).
	 * Clients that fail together retry together; use it for polling, not for contention.
	 */
	NONE {
		@Override
		long delayNanos(long ceilingNanos, long previousNanos, long baseNanos, long maxNanos, RandomGenerator random) {
			return ceilingNanos;
		}
	},

	/**
	 * {@code uniform(0, v(n))}: the least work and the best spread under contention;
	 * the recommended default.
	 */
	FULL {
		@Override
		long delayNanos(long ceilingNanos, long previousNanos, long baseNanos, long maxNanos, RandomGenerator random) {
			return uniform(random, 0, ceilingNanos);
		}
	},

	/**
	 * {@code v(n)/2 + uniform(0, v(n)/2)}: never waits less than half the ceiling.
	 */
	EQUAL {
		@Override
		long delayNanos(long ceilingNanos, long previousNanos, long baseNanos, long maxNanos, RandomGenerator random) {
			long half = ceilingNanos >>> 1;
			return half + uniform(random, 0, ceilingNanos - half);
		}
	},

	/**
	 * {@code min(maxDelay, uniform(baseDelay, 3 × previous))}, starting from the base delay:
	 * each wait depends on the one before, so a sequence is stateful per call.
	 */
	DECORRELATED {
		@Override
		long delayNanos(long ceilingNanos, long previousNanos, long baseNanos, long maxNanos, RandomGenerator random) {
			long upper = (previousNanos > Long.MAX_VALUE / 3) ? Long.MAX_VALUE : previousNanos * 3;
			return Math.min(maxNanos, uniform(random, baseNanos, Math.max(baseNanos, upper)));
		}

		@Override
		public boolean isStateful() {
			return true;
		}
	};

	/**
	 * Draws one delay. Every argument is a non-negative count of nanoseconds with
	 * {@code baseNanos <= maxNanos} and {@code ceilingNanos <= maxNanos}; the result is in
	 * {@code [0, maxNanos]}.
	 */
	abstract long delayNanos(long ceilingNanos, long previousNanos, long baseNanos, long maxNanos, RandomGenerator random);

	/**
	 * Whether a delay depends on the previous one (and so a sequence must not be shared).
	 * @return {@code true} only for {@link #DECORRELATED}
	 */
	public boolean isStateful() {
		return false;
	}

	/** Uniform in {@code [origin, bound)} ({@code origin} when they are equal), without overflow. */
	private static long uniform(RandomGenerator random, long origin, long bound) {
		// bound - origin never overflows: both are non-negative.
		return origin + (long) (random.nextDouble() * (bound - origin));
	}

}
