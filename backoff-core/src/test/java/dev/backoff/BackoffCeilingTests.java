package dev.backoff;

import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ceilings {@code min(maxDelay, baseDelay × multiplier^(n−1))} of {@link BackoffSchedule}'s
 * one formula: the same to the nanosecond for a sequence and for
 * {@link BackoffSchedule#ceiling(int)}, within one in a trillion of the exact power, never
 * decreasing, and saturating.
 */
class BackoffCeilingTests {

	/** Multipliers barely above 1, where a power's rounding matters most. */
	private static final double BELOW_CHUNKED = 1.0 + 0x1p-45;

	private static final double CHUNKED = 1.0 + 0x1p-44;

	private static final double ABOVE_CHUNKED = 1.0 + 0x1p-43;

	/** The benchmark's slow growth: 100 ms reaches Long.MAX_VALUE ns after about 2.5e8 retries. */
	private static final double SLOW = 1.0000001;

	private static final MathContext EXACT = new MathContext(40);

	@ParameterizedTest
	@ValueSource(doubles = { 1.0, BELOW_CHUNKED, CHUNKED, ABOVE_CHUNKED, SLOW, 1.001, 1.01, 1.1, 2.0, 10.0, 1e300 })
	void noneDelaysMatchTheCeilingsForTenThousandRetries(double multiplier) {
		BackoffPolicy policy = unlimited(Duration.ofMillis(100), multiplier, BackoffPolicy.MAX_DURATION);
		BackoffDelays delays = policy.getSchedule().delays(new ScriptedRandom());
		List<String> mismatches = new ArrayList<>();
		for (int retry = 1; retry <= 10_000; retry++) {
			Duration delay = delays.next();
			Duration ceiling = policy.getSchedule().ceiling(retry);
			if (!delay.equals(ceiling)) {
				mismatches.add("retry " + retry + ": " + delay + " but ceiling " + ceiling);
			}
		}
		assertThat(mismatches).isEmpty();
	}

	@Test
	void noneDelaysMatchTheCeilingsForSixteenMillionRetries() {
		BackoffPolicy policy = unlimited(Duration.ofMillis(100), SLOW, BackoffPolicy.MAX_DURATION);
		BackoffDelays delays = policy.getSchedule().delays(new ScriptedRandom());
		List<String> mismatches = new ArrayList<>();
		for (int retry = 1; retry <= (1 << 24) + 1000; retry++) {
			long delay = delays.nextNanos();
			long ceiling = policy.getSchedule().ceilingNanos(retry);
			if (delay != ceiling && mismatches.size() < 10) {
				mismatches.add("retry " + retry + ": " + delay + " but ceiling " + ceiling);
			}
		}
		assertThat(mismatches).isEmpty();
		assertThat(policy.getSchedule().ceiling(delays.retry()).toNanos()).isGreaterThan(policy.getSchedule().ceiling(1 << 24).toNanos());
	}

	@ParameterizedTest
	@ValueSource(doubles = { 1.0, 1.0 + 0x1p-52, BELOW_CHUNKED, CHUNKED, ABOVE_CHUNKED, SLOW, 1.001, 1.1, 1.5, 2.0,
			7.3, 1e300 })
	void ceilingsAreWithinOneInATrillionOfTheExactPower(double multiplier) {
		for (Duration base : List.of(Duration.ofNanos(1), Duration.ofMillis(100), Duration.ofDays(1))) {
			BackoffPolicy policy = unlimited(base, multiplier, BackoffPolicy.MAX_DURATION);
			List<String> inexact = new ArrayList<>();
			for (int retry : sampledRetries()) {
				long ceiling = policy.getSchedule().ceilingNanos(retry);
				BigDecimal exact = exactCeiling(base.toNanos(), multiplier, retry - 1);
				if (!withinOneInATrillion(ceiling, exact, Long.MAX_VALUE)) {
					inexact.add("retry " + retry + ": " + ceiling + " for " + exact.toBigInteger());
				}
			}
			assertThat(inexact).as("base %s", base).isEmpty();
		}
	}

	@ParameterizedTest
	@ValueSource(doubles = { 1.0 + 0x1p-52, BELOW_CHUNKED, CHUNKED, ABOVE_CHUNKED, SLOW, 1.001, 1.1, 2.0 })
	void ceilingsNeverDecrease(double multiplier) {
		// A day's base: the product has few nanoseconds to spare, so a power out of order shows.
		BackoffPolicy policy = unlimited(Duration.ofDays(1), multiplier, BackoffPolicy.MAX_DURATION);
		List<String> decreases = new ArrayList<>();
		for (int retry = 1; retry < 100_000; retry++) {
			checkOrder(policy, retry, decreases);
		}
		// A spread of retries up to the last.
		for (int exponent = 255; exponent < 1 << 24; exponent += 256) {
			checkOrder(policy, exponent + 1, decreases);
		}
		for (long exponent = 65_535; exponent < Integer.MAX_VALUE - 1; exponent += 65_536) {
			checkOrder(policy, (int) exponent + 1, decreases);
		}
		assertThat(decreases).isEmpty();
	}

	@Test
	void theFirst256CeilingsAreMathPowsToTheNanosecond() {
		for (double multiplier : new double[] { 1.01, 1.1, 1.2, 1.5, 1.7, 2.0, 3.0 }) {
			BackoffPolicy policy = unlimited(Duration.ofMillis(100), multiplier, BackoffPolicy.MAX_DURATION);
			for (int retry = 1; retry <= 256; retry++) {
				assertThat(policy.getSchedule().ceilingNanos(retry)).as("%s at retry %d", multiplier, retry)
					.isEqualTo(powCeiling(100_000_000L, multiplier, retry, Long.MAX_VALUE));
			}
		}
	}

	@Test
	void multipliersBarelyAboveOneAreMathPowsAtAnyRetry() {
		BackoffPolicy policy = unlimited(Duration.ofDays(1), BELOW_CHUNKED, BackoffPolicy.MAX_DURATION);
		for (int retry : sampledRetries()) {
			assertThat(policy.getSchedule().ceilingNanos(retry)).as("retry %d", retry)
				.isEqualTo(powCeiling(Duration.ofDays(1).toNanos(), BELOW_CHUNKED, retry, Long.MAX_VALUE));
		}
	}

	@Test
	void slowGrowthReachesTheCapWhereTheExactPowerDoesAndStaysThere() {
		// 100 ms × 1.0000001^(n−1) reaches a day after about 1.4e8 retries.
		BackoffPolicy policy = unlimited(Duration.ofMillis(100), SLOW, Duration.ofDays(1));
		long max = Duration.ofDays(1).toNanos();
		int below = 1;
		int capped = Integer.MAX_VALUE;
		while (capped - below > 1) {
			int middle = (below + capped) >>> 1;
			if (policy.getSchedule().ceilingNanos(middle) == max) {
				capped = middle;
			}
			else {
				below = middle;
			}
		}
		assertThat(capped).isBetween(130_000_000, 140_000_000);
		assertThat(policy.getSchedule().ceilingNanos(capped - 1)).isLessThan(max);
		assertThat(withinOneInATrillion(policy.getSchedule().ceilingNanos(capped - 1), exactCeiling(100_000_000L, SLOW, capped - 2),
				max)).isTrue();
		assertThat(exactCeiling(100_000_000L, SLOW, capped - 1))
			.isGreaterThanOrEqualTo(BigDecimal.valueOf(max).multiply(BigDecimal.valueOf(1 - 1e-12)));
		assertThat(policy.getSchedule().ceiling(capped + 1)).isEqualTo(Duration.ofDays(1));
		assertThat(policy.getSchedule().ceiling(Integer.MAX_VALUE)).isEqualTo(Duration.ofDays(1));
	}

	@Test
	void slowGrowthUpToTheLongestDurationEndsThere() {
		BackoffPolicy policy = unlimited(Duration.ofMillis(100), SLOW, BackoffPolicy.MAX_DURATION);
		assertThat(policy.getSchedule().ceiling(300_000_000)).isEqualTo(BackoffPolicy.MAX_DURATION);
		assertThat(policy.getSchedule().ceiling(Integer.MAX_VALUE)).isEqualTo(BackoffPolicy.MAX_DURATION);
		assertThat(policy.getSchedule().ceiling(200_000_000)).isLessThan(BackoffPolicy.MAX_DURATION);
	}

	private static void checkOrder(BackoffPolicy policy, int retry, List<String> decreases) {
		long ceiling = policy.getSchedule().ceilingNanos(retry);
		long next = policy.getSchedule().ceilingNanos(retry + 1);
		if (next < ceiling) {
			decreases.add("retry " + retry + ": " + ceiling + ", then " + next);
		}
	}

	/** Retries either side of every chunk boundary of the exponent, and a seeded spread up to the last. */
	private static List<Integer> sampledRetries() {
		List<Integer> retries = new ArrayList<>();
		for (int exponent : new int[] { 0, 1, 2, 254, 255, 256, 257, 511, 512, 65_535, 65_536, 65_537, (1 << 24) - 1,
				1 << 24, (1 << 24) + 1, Integer.MAX_VALUE - 1 }) {
			retries.add(exponent + 1);
		}
		SplittableRandom random = new SplittableRandom(20150304L);
		for (int i = 0; i < 40; i++) {
			retries.add(1 + random.nextInt(1, Integer.MAX_VALUE - 1));
		}
		return retries;
	}

	private static boolean withinOneInATrillion(long ceiling, BigDecimal exact, long max) {
		BigDecimal tolerance = exact.multiply(BigDecimal.valueOf(1e-12)).add(BigDecimal.ONE);
		if (ceiling == max) {
			// Capped: the exact ceiling reaches the cap, give or take the tolerance.
			return exact.add(tolerance).compareTo(BigDecimal.valueOf(max)) >= 0;
		}
		return exact.subtract(BigDecimal.valueOf(ceiling)).abs().compareTo(tolerance) <= 0;
	}

	/** {@code base × multiplier^exponent}, exactly enough; far past the longest duration for large powers. */
	private static BigDecimal exactCeiling(long base, double multiplier, int exponent) {
		if (exponent * Math.log10(multiplier) > 40) {
			return BigDecimal.TEN.pow(60);
		}
		return power(new BigDecimal(multiplier), exponent).multiply(BigDecimal.valueOf(base), EXACT);
	}

	private static BigDecimal power(BigDecimal multiplier, int exponent) {
		// BigDecimal.pow takes exponents up to 999,999,999.
		if (exponent < 999_999_999) {
			return multiplier.pow(exponent, EXACT);
		}
		BigDecimal half = power(multiplier, exponent / 2);
		return half.multiply(half, EXACT).multiply(multiplier.pow(exponent % 2), EXACT);
	}

	/** The formula before powers were cached: one {@code Math.pow} per ceiling. */
	private static long powCeiling(long base, double multiplier, int retry, long max) {
		double ceiling = base * Math.pow(multiplier, retry - 1.0);
		return (ceiling >= max) ? max : (long) ceiling;
	}

	private static BackoffPolicy unlimited(Duration base, double multiplier, Duration max) {
		return BackoffPolicy.builder()
			.baseDelay(base)
			.maxDelay(max)
			.multiplier(multiplier)
			.jitter(Jitter.NONE)
			.maxAttempts(Integer.MAX_VALUE)
			.build();
	}

}
