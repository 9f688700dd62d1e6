package dev.backoff.benchmarks.hedging;

import java.util.random.RandomGenerator;

/**
 * A service with a heavy tail, each request answered independently of the others and of the
 * load (the service has no queue: the extra requests of hedging never slow it down): most
 * answers are fast, log-normal around {@code medianMs}, and a share {@code slowShare} of them
 * is {@code slowFactor} times slower (a fast draw times the factor), as a request that meets a
 * garbage collection, a compaction or a cold cache is.
 * @param medianMs the fast answers' median, in milliseconds
 * @param sigma the fast answers' spread: the standard deviation of their logarithm
 * @param slowShare the share of answers that are slow
 * @param slowFactor how many times slower a slow answer is
 */
public record HeavyTailService(double medianMs, double sigma, double slowShare, double slowFactor) {

	/**
	 * @return answers around 10 ms (log-normal, σ 0.5: 90 % within 4.4 to 23 ms), 1 % of them
	 * 100 times slower (around 1 s), as issue 41 describes
	 */
	public static HeavyTailService defaults() {
		return new HeavyTailService(10, 0.5, 0.01, 100);
	}

	/**
	 * Draws one request's answer time: one Gaussian, then one uniform.
	 * @param random the generator
	 * @return the time from the request to its answer, in milliseconds
	 */
	public double draw(RandomGenerator random) {
		// StrictMath: the same answer times, to the last bit, on every JVM and CPU.
		double fast = this.medianMs * StrictMath.exp(this.sigma * random.nextGaussian());
		return (random.nextDouble() < this.slowShare) ? fast * this.slowFactor : fast;
	}

	/**
	 * @param ms a time in milliseconds
	 * @return the share of answers that take longer
	 */
	public double slowerThan(double ms) {
		double fast = 1 - normal(Math.log(ms / this.medianMs) / this.sigma);
		double slow = 1 - normal(Math.log(ms / (this.medianMs * this.slowFactor)) / this.sigma);
		return (1 - this.slowShare) * fast + this.slowShare * slow;
	}

	/**
	 * @param q the quantile, strictly between 0 and 1
	 * @return the answer time that a share {@code q} of answers do not exceed, in milliseconds
	 */
	public double quantileMs(double q) {
		double low = 1e-6;
		double high = this.medianMs * this.slowFactor * Math.exp(10 * this.sigma);
		// Bisection on a logarithmic scale: the tail spans decades.
		for (int i = 0; i < 200; i++) {
			double middle = Math.sqrt(low * high);
			if (1 - slowerThan(middle) < q) {
				low = middle;
			}
			else {
				high = middle;
			}
		}
		return Math.sqrt(low * high);
	}

	/**
	 * @param slowShareOfThem the share {@code p} of the slow answers, from 0 to 1
	 * @return the time that a share {@code p} of the slow answers do not exceed, in milliseconds
	 */
	public double slowQuantileMs(double slowShareOfThem) {
		HeavyTailService slowOnly = new HeavyTailService(this.medianMs * this.slowFactor, this.sigma, 0, 1);
		return slowOnly.quantileMs(slowShareOfThem);
	}

	/** The standard normal distribution function, from erfc (Numerical Recipes' erfcc, error below 1.2e-7). */
	static double normal(double z) {
		double x = Math.abs(z) / Math.sqrt(2);
		double t = 1 / (1 + 0.5 * x);
		double erfc = t * Math.exp(-x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418
				+ t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587
						+ t * (-0.82215223 + t * 0.17087277)))))))));
		return (z >= 0) ? 1 - erfc / 2 : erfc / 2;
	}

}
