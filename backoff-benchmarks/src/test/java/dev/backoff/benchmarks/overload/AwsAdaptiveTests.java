package dev.backoff.benchmarks.overload;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * {@link AwsAdaptive}: the pre-fix {@code RateLimiterTokenBucket}'s arithmetic, and the two
 * behaviours aws-sdk-java-v2 7197 fixed, on a manual clock.
 */
class AwsAdaptiveTests {

	private long now = 10_000_000_000L;

	private final AwsAdaptive bucket = new AwsAdaptive(() -> this.now);

	@Test
	void isDormantUntilTheFirstThrottleThenCutsToPointSevenOfTheMeasuredRate() {
		assertThat(this.bucket.delayNanos()).isZero();
		// Answers at 20 a second for 2 s: the measured rate, per half second, smoothed 0.8.
		for (int i = 0; i < 40; i++) {
			this.now += 50_000_000L;
			this.bucket.onSuccess();
		}
		this.bucket.onThrottled();
		assertThat(this.bucket.rate()).isCloseTo(0.7 * 20, within(0.5));
	}

	@Test
	void attemptsThatFindTheBucketEmptyAllWaitTheSameAndTakeNothing() {
		for (int i = 0; i < 40; i++) {
			this.now += 50_000_000L;
			this.bucket.onSuccess();
		}
		this.bucket.onThrottled();
		// Once the tokens it filled while dormant are taken, every caller is told the same short
		// wait, and none reserves its token, so they all go together after it.
		int taken = 0;
		long first;
		while ((first = this.bucket.delayNanos()) == 0) {
			taken++;
		}
		assertThat(taken).isBetween(1, 40);
		assertThat(first).isPositive();
		for (int i = 0; i < 10; i++) {
			assertThat(this.bucket.delayNanos()).isEqualTo(first);
		}
	}

	@Test
	void everyThrottleCutsAgainEvenRightAfterACut() {
		for (int i = 0; i < 40; i++) {
			this.now += 50_000_000L;
			this.bucket.onSuccess();
		}
		this.bucket.onThrottled();
		double afterOne = this.bucket.rate();
		this.now += 1_000_000L;
		this.bucket.onThrottled();
		this.now += 1_000_000L;
		this.bucket.onThrottled();
		assertThat(this.bucket.rate()).isCloseTo(afterOne * 0.7 * 0.7, within(0.01));
	}

}
