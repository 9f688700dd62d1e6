package dev.backoff;

import java.util.Arrays;

/**
 * The ceilings {@code v(n) = min(maxDelay, baseDelay × multiplier^(n−1))} of one policy, in
 * nanoseconds: the one formula behind both {@link BackoffPolicy#ceiling(int)} and
 * {@link BackoffDelays}, so that a sequence's delays match the advertised ceilings to the
 * nanosecond. Immutable; built once with its policy.
 *
 * <p>A ceiling is four table lookups and three multiplies, not a {@code Math.pow} per retry,
 * which costs more than all the rest of a delay. With {@code e = n − 1} written in 8-bit chunks
 * {@code b3 b2 b1 b0}, {@code multiplier^e = (p3[b3] × p2[b2]) × (p1[b1] × p0[b0])}, always in
 * that order, where {@code pk[b] = Math.pow(multiplier, b × 256^k)}. Below 256 that is
 * {@code Math.pow(multiplier, e)} itself (every other factor is exactly 1.0), and most policies
 * never go further: the defaults reach {@code maxDelay} at the 9th retry. A factor that is not
 * cached is computed on the spot, to the same value, so a ceiling does not depend on what is
 * cached.
 *
 * <p>The product is within 6 × 2⁻⁵² (1.4e-15) of the exact power, relatively: four factors
 * within one ulp each, by {@code Math.pow}'s contract, and three roundings. So consecutive
 * powers, and the ceilings, never decrease when the multiplier is at least 1 + 12 × 2⁻⁵²
 * (2.7e-15). Below 1 + 2⁻⁴⁴, twenty times that margin, each power is {@code Math.pow} again,
 * monotone by contract; such a multiplier grows a delay by at most 0.013 % over 2³¹ retries, so
 * no real policy pays for it.
 */
final class Ceilings {

	private static final int CHUNK_BITS = 8;

	private static final int CHUNK = 1 << CHUNK_BITS;

	private static final double SMALLEST_CHUNKED_GROWTH = 0x1p-44;

	/** The powers of a chunk that is always zero: {@code multiplier^0}. */
	private static final double[] ZERO_CHUNK = { 1.0 };

	private final long baseNanos;

	private final double multiplier;

	/** Whether powers are products of chunk powers; otherwise one {@code Math.pow} each. */
	private final boolean chunked;

	/** The exponent from which every ceiling is {@link #steadyNanos}; {@link Integer#MAX_VALUE} for none. */
	private final int steadyFrom;

	private final long steadyNanos;

	/** The exponents below this one have every chunk power cached. */
	private final int cachedBelow;

	/**
	 * {@code multiplier^(b × 256^k)} at index {@code b} of table {@code k}, for the chunks
	 * {@code b} that the exponents below {@link #cachedBelow} have.
	 */
	private final double[] powers0;

	private final double[] powers1;

	private final double[] powers2;

	private final double[] powers3;

	private Ceilings(long baseNanos, double multiplier, boolean chunked, int steadyFrom, long steadyNanos,
			int cachedBelow, double[][] powers) {
		this.baseNanos = baseNanos;
		this.multiplier = multiplier;
		this.chunked = chunked;
		this.steadyFrom = steadyFrom;
		this.steadyNanos = steadyNanos;
		this.cachedBelow = cachedBelow;
		this.powers0 = powers[0];
		this.powers1 = powers[1];
		this.powers2 = powers[2];
		this.powers3 = powers[3];
	}

	/**
	 * Caches the powers of the exponents that a sequence can reach below the cap: those below
	 * both the first capped one and {@code maxRetries}. Memory: at most 3 × 256 + 128 doubles
	 * (7 KB; the top chunk of an exponent below 2³¹ is below 128), and that only for a policy
	 * that both grows for more than 256 retries and allows them; a policy that caps early or
	 * retries a few times holds that few (the defaults: 2). 8-bit chunks cost four lookups and
	 * three multiplies; 16-bit ones would save two multiplies for 768 KB.
	 */
	static Ceilings of(long baseNanos, long maxNanos, double multiplier, int maxRetries) {
		if (baseNanos == 0 || multiplier == 1.0) {
			// The power is exactly 1.0 for every retry (and a zero base stays zero, even where
			// the power would be infinite and 0 × infinity NaN): one ceiling for all.
			double ceiling = baseNanos * 1.0;
			return new Ceilings(baseNanos, multiplier, false, 0, (ceiling >= maxNanos) ? maxNanos : (long) ceiling, 0,
					new double[][] { ZERO_CHUNK, ZERO_CHUNK, ZERO_CHUNK, ZERO_CHUNK });
		}
		boolean chunked = (multiplier - 1.0 >= SMALLEST_CHUNKED_GROWTH);
		double[] lowest = new double[CHUNK];
		int steadyFrom = 0;
		for (; steadyFrom < CHUNK; steadyFrom++) {
			lowest[steadyFrom] = Math.pow(multiplier, steadyFrom);
			if (baseNanos * lowest[steadyFrom] >= maxNanos) {
				break;
			}
		}
		if (steadyFrom == CHUNK) {
			// Still below the cap after 256 retries: find the first capped exponent by bisection,
			// as the ceilings never decrease, with the higher chunks' powers computed on the spot.
			Ceilings uncached = new Ceilings(baseNanos, multiplier, chunked, Integer.MAX_VALUE, maxNanos, 0,
					new double[][] { lowest, ZERO_CHUNK, ZERO_CHUNK, ZERO_CHUNK });
			int below = CHUNK - 1;
			int capped = Integer.MAX_VALUE;
			while (capped - below > 1) {
				int middle = (below + capped) >>> 1;
				if (baseNanos * uncached.power(middle) >= maxNanos) {
					capped = middle;
				}
				else {
					below = middle;
				}
			}
			steadyFrom = capped;
		}
		// The exponents a sequence computes; any other (a ceiling past maxRetries) is computed on the spot.
		int cachedBelow = Math.min(steadyFrom, maxRetries);
		if (!chunked) {
			cachedBelow = Math.min(cachedBelow, CHUNK);
		}
		double[][] powers = new double[4][];
		powers[0] = Arrays.copyOf(lowest, Math.max(1, Math.min(cachedBelow, CHUNK)));
		int largest = Math.max(0, cachedBelow - 1);
		for (int table = 1; table < 4; table++) {
			int shift = table * CHUNK_BITS;
			int chunks = ((largest >>> shift) >= CHUNK) ? CHUNK : (largest >>> shift) + 1;
			powers[table] = ZERO_CHUNK;
			if (chunks > 1) {
				powers[table] = new double[chunks];
				for (int chunk = 0; chunk < chunks; chunk++) {
					powers[table][chunk] = Math.pow(multiplier, chunk << shift);
				}
			}
		}
		return new Ceilings(baseNanos, multiplier, chunked, steadyFrom, maxNanos, cachedBelow, powers);
	}

	/**
	 * @param retry the retry number, from 1
	 * @return the ceiling of that retry in nanoseconds, in {@code [0, maxNanos]}
	 */
	long nanos(int retry) {
		int exponent = retry - 1;
		if (exponent >= this.steadyFrom) {
			return this.steadyNanos;
		}
		double power;
		if (exponent < this.cachedBelow) {
			// power(exponent) with every factor from the tables, multiplied in the same order.
			power = (this.powers3[exponent >>> 24] * this.powers2[(exponent >>> 16) & 0xFF])
					* (this.powers1[(exponent >>> 8) & 0xFF] * this.powers0[exponent & 0xFF]);
		}
		else {
			power = power(exponent);
		}
		// Below steadyFrom the product is below maxNanos: the cast cannot saturate.
		return (long) (this.baseNanos * power);
	}

	/** @return {@code multiplier^exponent}, as {@link #nanos(int)} forms it, caching or not */
	double power(int exponent) {
		if (!this.chunked) {
			return (exponent < this.powers0.length) ? this.powers0[exponent] : Math.pow(this.multiplier, exponent);
		}
		// One order of multiplication for every exponent, so one value; a zero chunk's 1.0 is exact.
		return (chunkPower(this.powers3, 24, exponent >>> 24) * chunkPower(this.powers2, 16, (exponent >>> 16) & 0xFF))
				* (chunkPower(this.powers1, 8, (exponent >>> 8) & 0xFF) * chunkPower(this.powers0, 0, exponent & 0xFF));
	}

	private double chunkPower(double[] powers, int shift, int chunk) {
		return (chunk < powers.length) ? powers[chunk] : Math.pow(this.multiplier, chunk << shift);
	}

	/** @return the number of powers cached beyond the shared {@code multiplier^0}, for the memory bound's tests */
	int cachedPowers() {
		int cached = 0;
		for (double[] powers : new double[][] { this.powers0, this.powers1, this.powers2, this.powers3 }) {
			cached += (powers != ZERO_CHUNK) ? powers.length : 0;
		}
		return cached;
	}

}
