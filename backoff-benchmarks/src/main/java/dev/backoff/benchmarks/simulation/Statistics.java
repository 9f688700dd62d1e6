package dev.backoff.benchmarks.simulation;

import java.util.Arrays;

/**
 * The summaries the simulations report over their runs.
 */
public final class Statistics {

	private Statistics() {
	}

	/**
	 * @param values the values
	 * @return their mean, or NaN for none
	 */
	public static double mean(double[] values) {
		return Arrays.stream(values).average().orElse(Double.NaN);
	}

	/**
	 * @param values the values, in any order; left unchanged
	 * @return their median (the mean of the middle two for an even count), or NaN for none
	 */
	public static double median(double[] values) {
		int n = values.length;
		if (n == 0) {
			return Double.NaN;
		}
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		return ((n & 1) == 1) ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	}

	/**
	 * @param values the values, in any order; left unchanged
	 * @param q the quantile, from 0 to 1
	 * @return the {@code q}-quantile, interpolated linearly between the closest ranks, or NaN for
	 * no values
	 */
	public static double quantile(double[] values, double q) {
		int n = values.length;
		if (n == 0) {
			return Double.NaN;
		}
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		double rank = q * (n - 1);
		int below = (int) Math.floor(rank);
		int above = Math.min(below + 1, n - 1);
		return sorted[below] + (rank - below) * (sorted[above] - sorted[below]);
	}

}
