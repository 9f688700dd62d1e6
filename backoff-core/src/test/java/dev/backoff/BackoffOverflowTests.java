package dev.backoff;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Saturating arithmetic: no retry number, multiplier or duration makes a delay or a ceiling
 * overflow, go negative or exceed {@code maxDelay}.
 */
class BackoffOverflowTests {

	private static final double ALMOST_ONE = Math.nextDown(1.0);

	@ParameterizedTest
	@EnumSource(Jitter.class)
	void tenThousandRetriesOfADayTimesTenStayWithinTheLongestDuration(Jitter jitter) {
		BackoffPolicy policy = dayTimesTen(jitter, BackoffPolicy.MAX_DURATION);
		assertThat(outOfBounds(policy)).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(Jitter.class)
	void tenThousandRetriesOfADayTimesTenStayWithinAThirtyDayCap(Jitter jitter) {
		BackoffPolicy policy = dayTimesTen(jitter, Duration.ofDays(30));
		assertThat(outOfBounds(policy)).isEmpty();
	}

	@Test
	void tenThousandRetriesWithoutJitterEndAtMaxDelay() {
		BackoffPolicy policy = dayTimesTen(Jitter.NONE, BackoffPolicy.MAX_DURATION);
		assertThat(policy.getSchedule().delays().stream().reduce((first, second) -> second)).hasValue(BackoffPolicy.MAX_DURATION);
	}

	@Test
	void ceilingOfTheLastPossibleRetryIsMaxDelay() {
		BackoffPolicy policy = BackoffPolicy.defaults();
		assertThat(policy.getSchedule().ceiling(Integer.MAX_VALUE)).isEqualTo(policy.getSchedule().getMaxDelay());
	}

	@Test
	void ceilingOfTheLastPossibleRetryIsTheLongestDurationWhenThatIsTheCap() {
		BackoffPolicy policy = BackoffPolicy.builder().maxDelay(BackoffPolicy.MAX_DURATION).build();
		assertThat(policy.getSchedule().ceiling(Integer.MAX_VALUE)).isEqualTo(BackoffPolicy.MAX_DURATION);
	}

	@Test
	void ceilingOfTheLastPossibleRetryWithMultiplierOneIsBaseDelay() {
		BackoffPolicy policy = BackoffPolicy.builder().multiplier(1.0).build();
		assertThat(policy.getSchedule().ceiling(Integer.MAX_VALUE)).isEqualTo(policy.getSchedule().getBaseDelay());
	}

	@Test
	void ceilingOfTheLastPossibleRetryWithZeroBaseDelayIsZero() {
		// 0 × 2^(2^31) is 0 × infinity, NaN in floating point.
		BackoffPolicy policy = BackoffPolicy.builder().baseDelay(Duration.ZERO).build();
		assertThat(policy.getSchedule().ceiling(Integer.MAX_VALUE)).isZero();
	}

	@ParameterizedTest
	@EnumSource(Jitter.class)
	void hugeMultiplierGivesNoNegativeOrOversizedDelay(Jitter jitter) {
		BackoffPolicy policy = BackoffPolicy.builder()
			.multiplier(1e300)
			.maxDelay(BackoffPolicy.MAX_DURATION)
			.jitter(jitter)
			.maxAttempts(100)
			.build();
		assertThat(outOfBounds(policy)).isEmpty();
	}

	@Test
	void hugeMultiplierCeilingsJumpToMaxDelay() {
		BackoffPolicy policy = BackoffPolicy.builder().multiplier(1e300).build();
		assertThat(policy.getSchedule().ceiling(1)).isEqualTo(policy.getSchedule().getBaseDelay());
		assertThat(policy.getSchedule().ceiling(2)).isEqualTo(policy.getSchedule().getMaxDelay());
		// 1e300 squared is infinite.
		assertThat(policy.getSchedule().ceiling(3)).isEqualTo(policy.getSchedule().getMaxDelay());
	}

	@Test
	void hugeMultiplierGivesAFiniteWorstCase() {
		BackoffPolicy policy = BackoffPolicy.builder().multiplier(1e300).maxAttempts(4).build();
		// 100ms, then 20s twice.
		assertThat(policy.getSchedule().worstCaseTotalDelay()).isEqualTo(Duration.ofMillis(40_100));
	}

	@ParameterizedTest
	@EnumSource(Jitter.class)
	void drawingAtTheLargestValuesStaysWithinMaxDelay(Jitter jitter) {
		long delay = jitter.delayNanos(Long.MAX_VALUE, Long.MAX_VALUE, 0, Long.MAX_VALUE,
				new ScriptedRandom(ALMOST_ONE));
		assertThat(delay).isBetween(0L, Long.MAX_VALUE);
		assertThat(delay).isGreaterThan(Long.MAX_VALUE / 2);
	}

	@Test
	void decorrelatedSaturatesThreeTimesAPreviousDelayAboveAThirdOfTheRange() {
		long previous = Long.MAX_VALUE / 3 + 1;
		long delay = Jitter.DECORRELATED.delayNanos(0, previous, 1, Long.MAX_VALUE, new ScriptedRandom(ALMOST_ONE));
		assertThat(delay).isGreaterThan(previous * 2).isLessThanOrEqualTo(Long.MAX_VALUE);
	}

	@Test
	void worstCaseOfUnlimitedAttemptsSaturatesAtTheLongestDuration() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.maxAttempts(Integer.MAX_VALUE)
			.baseDelay(Duration.ofDays(1))
			.maxDelay(BackoffPolicy.MAX_DURATION)
			.build();
		assertThat(policy.getSchedule().worstCaseTotalDelay()).isEqualTo(BackoffPolicy.MAX_DURATION);
	}

	private static BackoffPolicy dayTimesTen(Jitter jitter, Duration maxDelay) {
		return BackoffPolicy.builder()
			.baseDelay(Duration.ofDays(1))
			.maxDelay(maxDelay)
			.multiplier(10)
			.jitter(jitter)
			.maxAttempts(10_001)
			.build();
	}

	/** @return every delay of the whole sequence that is negative or above maxDelay */
	private static List<String> outOfBounds(BackoffPolicy policy) {
		long max = policy.getSchedule().getMaxDelay().toNanos();
		BackoffDelays delays = policy.getSchedule().delays(new SplittableRandom(42));
		List<String> outOfBounds = new ArrayList<>();
		while (delays.hasNext()) {
			long delay = delays.nextNanos();
			if (delay < 0 || delay > max) {
				outOfBounds.add("retry " + delays.retry() + ": " + delay);
			}
		}
		assertThat(delays.retry()).isEqualTo(policy.getSchedule().getMaxRetries());
		return outOfBounds;
	}

}
