package dev.backoff;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The statistics of each {@link Jitter} over {@value #DRAWS} draws with fixed seeds: bounds that
 * always hold, means, spread, and the independence and reproducibility of sequences.
 */
class JitterDistributionTests {

	private static final int DRAWS = 200_000;

	private static final long SEED = 20150304L;

	/** The ceiling of every retry when the multiplier is 1: one second. */
	private static final double V = 1_000_000_000.0;

	@ParameterizedTest
	@EnumSource(Jitter.class)
	void everyDelayStaysWithinItsBounds(Jitter jitter) {
		BackoffPolicy policy = exponential(jitter);
		long base = policy.getSchedule().getBaseDelay().toNanos();
		long max = policy.getSchedule().getMaxDelay().toNanos();
		BackoffDelays delays = policy.getSchedule().delays(new SplittableRandom(SEED));
		List<String> violations = new ArrayList<>();
		while (delays.hasNext()) {
			long delay = delays.nextNanos();
			long ceiling = policy.getSchedule().ceiling(delays.retry()).toNanos();
			boolean inBounds = switch (jitter) {
				case NONE -> delay == ceiling;
				case FULL -> delay >= 0 && delay <= ceiling;
				case EQUAL -> delay >= ceiling / 2 && delay <= ceiling;
				case DECORRELATED -> delay >= base && delay <= max;
			};
			if (!inBounds) {
				violations.add("retry " + delays.retry() + ": " + delay + " for a ceiling of " + ceiling);
			}
		}
		assertThat(delays.retry()).isEqualTo(DRAWS);
		assertThat(violations).isEmpty();
	}

	@Test
	void noneAlwaysReturnsTheCeiling() {
		long[] delays = fixedCeilingDraws(Jitter.NONE);
		assertThat(min(delays)).isEqualTo((long) V);
		assertThat(max(delays)).isEqualTo((long) V);
	}

	@Test
	void fullJitterMeanIsHalfTheCeiling() {
		assertThat(mean(fixedCeilingDraws(Jitter.FULL))).isCloseTo(V / 2, within(V / 2 * 0.01));
	}

	@Test
	void fullJitterVarianceIsThatOfAUniformDistribution() {
		assertThat(variance(fixedCeilingDraws(Jitter.FULL))).isCloseTo(V * V / 12, within(V * V / 12 * 0.02));
	}

	@Test
	void fullJitterSpreadsFromZeroToTheCeiling() {
		long[] delays = fixedCeilingDraws(Jitter.FULL);
		assertThat(min(delays)).isBetween(0L, (long) (V * 0.001));
		assertThat(max(delays)).isBetween((long) (V * 0.999), (long) V - 1);
	}

	@Test
	void equalJitterMeanIsThreeQuartersOfTheCeiling() {
		assertThat(mean(fixedCeilingDraws(Jitter.EQUAL))).isCloseTo(V * 3 / 4, within(V * 3 / 4 * 0.01));
	}

	@Test
	void equalJitterVarianceIsThatOfAUniformDistributionOverHalfTheCeiling() {
		assertThat(variance(fixedCeilingDraws(Jitter.EQUAL))).isCloseTo(V * V / 48, within(V * V / 48 * 0.02));
	}

	@Test
	void equalJitterSpreadsFromHalfTheCeilingToTheCeiling() {
		long[] delays = fixedCeilingDraws(Jitter.EQUAL);
		assertThat(min(delays)).isBetween((long) (V / 2), (long) (V * 0.501));
		assertThat(max(delays)).isBetween((long) (V * 0.999), (long) V - 1);
	}

	@Test
	void decorrelatedStaysBetweenBaseDelayAndThreeTimesThePreviousCapped() {
		BackoffPolicy policy = exponential(Jitter.DECORRELATED);
		long base = policy.getSchedule().getBaseDelay().toNanos();
		long max = policy.getSchedule().getMaxDelay().toNanos();
		long[] delays = draws(policy, new SplittableRandom(SEED));
		List<String> violations = new ArrayList<>();
		long previous = base;
		for (int i = 0; i < delays.length; i++) {
			long upper = Math.min(max, 3 * previous);
			if (delays[i] < base || delays[i] > upper) {
				violations.add("retry " + (i + 1) + ": " + delays[i] + " outside [" + base + ", " + upper + "]");
			}
			previous = delays[i];
		}
		assertThat(violations).isEmpty();
	}

	@Test
	void decorrelatedSpreadsFromBaseDelayToMaxDelay() {
		BackoffPolicy policy = exponential(Jitter.DECORRELATED);
		long[] delays = draws(policy, new SplittableRandom(SEED));
		long base = policy.getSchedule().getBaseDelay().toNanos();
		long max = policy.getSchedule().getMaxDelay().toNanos();
		assertThat(min(delays)).isBetween(base, base + (max - base) / 1000);
		assertThat(max(delays)).isEqualTo(max);
		// Neither stuck at the cap nor at the floor.
		long capped = Arrays.stream(delays).filter((delay) -> delay == max).count();
		assertThat(capped).isBetween(DRAWS / 20L, DRAWS * 19 / 20L);
	}

	@Test
	void sequencesFromDelaysAreIndependent() {
		BackoffPolicy policy = fixedCeiling(Jitter.FULL);
		long[] first = draws(policy.getSchedule().delays());
		long[] second = draws(policy.getSchedule().delays());
		assertThat(first).isNotEqualTo(second);
		// |r| of 200,000 independent pairs exceeds 0.02 with a probability of about 1e-18.
		assertThat(correlation(first, second)).isCloseTo(0.0, within(0.02));
	}

	@Test
	void consecutiveDelaysOfOneSequenceAreUncorrelated() {
		long[] delays = fixedCeilingDraws(Jitter.FULL);
		long[] current = Arrays.copyOfRange(delays, 1, delays.length);
		long[] previous = Arrays.copyOf(delays, delays.length - 1);
		assertThat(correlation(previous, current)).isCloseTo(0.0, within(0.02));
	}

	@ParameterizedTest
	@EnumSource(Jitter.class)
	void fixedSeedsReproduceIdenticalSequences(Jitter jitter) {
		BackoffPolicy policy = exponential(jitter);
		long[] first = draws(policy, new SplittableRandom(SEED));
		long[] second = draws(policy, new SplittableRandom(SEED));
		assertThat(second).isEqualTo(first);
	}

	@Test
	void differentSeedsGiveDifferentSequences() {
		BackoffPolicy policy = exponential(Jitter.FULL);
		List<Duration> first = policy.getSchedule().delays(new SplittableRandom(SEED)).stream().limit(100).toList();
		List<Duration> second = policy.getSchedule().delays(new SplittableRandom(SEED + 1)).stream().limit(100).toList();
		assertThat(second).isNotEqualTo(first);
	}

	/** Base 10ms, doubling, capped at 1s: most draws at the cap, the first ones below it. */
	private static BackoffPolicy exponential(Jitter jitter) {
		return BackoffPolicy.builder()
			.baseDelay(Duration.ofMillis(10))
			.maxDelay(Duration.ofSeconds(1))
			.jitter(jitter)
			.maxAttempts(DRAWS + 1)
			.build();
	}

	/** Every ceiling is {@link #V}, so that every draw has the same distribution. */
	private static BackoffPolicy fixedCeiling(Jitter jitter) {
		return BackoffPolicy.builder()
			.baseDelay(Duration.ofNanos((long) V))
			.maxDelay(Duration.ofNanos((long) V))
			.multiplier(1.0)
			.jitter(jitter)
			.maxAttempts(DRAWS + 1)
			.build();
	}

	private static long[] fixedCeilingDraws(Jitter jitter) {
		return draws(fixedCeiling(jitter), new SplittableRandom(SEED));
	}

	private static long[] draws(BackoffPolicy policy, RandomGenerator random) {
		return draws(policy.getSchedule().delays(random));
	}

	private static long[] draws(BackoffDelays delays) {
		long[] draws = new long[DRAWS];
		for (int i = 0; i < DRAWS; i++) {
			draws[i] = delays.nextNanos();
		}
		assertThat(delays.hasNext()).isFalse();
		return draws;
	}

	private static double mean(long[] values) {
		double sum = 0;
		for (long value : values) {
			sum += value;
		}
		return sum / values.length;
	}

	private static double variance(long[] values) {
		double mean = mean(values);
		double sum = 0;
		for (long value : values) {
			sum += (value - mean) * (value - mean);
		}
		return sum / (values.length - 1);
	}

	private static double correlation(long[] x, long[] y) {
		double meanX = mean(x);
		double meanY = mean(y);
		double covariance = 0;
		double varianceX = 0;
		double varianceY = 0;
		for (int i = 0; i < x.length; i++) {
			double dx = x[i] - meanX;
			double dy = y[i] - meanY;
			covariance += dx * dy;
			varianceX += dx * dx;
			varianceY += dy * dy;
		}
		return covariance / Math.sqrt(varianceX * varianceY);
	}

	private static long min(long[] values) {
		return Arrays.stream(values).min().orElseThrow();
	}

	private static long max(long[] values) {
		return Arrays.stream(values).max().orElseThrow();
	}

}
