package dev.backoff;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@link Jitter} formula, checked to the nanosecond with a {@link ScriptedRandom}:
 * each scripted {@code nextDouble()} is the position of the draw inside its range.
 */
class JitterTests {

	private static final double ALMOST_ONE = Math.nextDown(1.0);

	@Test
	void noneIsTheCappedExponentialCeiling() {
		ScriptedRandom random = new ScriptedRandom();
		List<Duration> delays = policy(Jitter.NONE, 2.0, 7).getSchedule().delays(random).stream().toList();
		assertThat(delays).containsExactly(millis(100), millis(200), millis(400), millis(800), millis(1000),
				millis(1000));
		assertThat(random.draws()).isZero();
	}

	@Test
	void noneWithMultiplierOneIsAFixedDelay() {
		List<Duration> delays = policy(Jitter.NONE, 1.0, 5).getSchedule().delays(new ScriptedRandom()).stream().toList();
		assertThat(delays).containsExactly(millis(100), millis(100), millis(100), millis(100));
	}

	@Test
	void fullIsUniformBetweenZeroAndTheCeiling() {
		ScriptedRandom random = new ScriptedRandom(0.0, 0.5, 0.25, 0.75);
		List<Duration> delays = policy(Jitter.FULL, 2.0, 5).getSchedule().delays(random).stream().toList();
		// Ceilings 100, 200, 400, 800 ms.
		assertThat(delays).containsExactly(Duration.ZERO, millis(100), millis(100), millis(600));
		assertThat(random.draws()).isEqualTo(4);
	}

	@Test
	void fullNeverReachesItsCeiling() {
		BackoffDelays delays = policy(Jitter.FULL, 2.0, 2).getSchedule().delays(new ScriptedRandom(ALMOST_ONE));
		assertThat(delays.next()).isEqualTo(Duration.ofNanos(99_999_999));
	}

	@Test
	void fullIsCappedByMaxDelay() {
		// Ceilings 100, 200, 400, 800, then 1000 ms (capped) twice.
		ScriptedRandom random = new ScriptedRandom(0.5, 0.5, 0.5, 0.5, 0.5, 0.5);
		List<Duration> delays = policy(Jitter.FULL, 2.0, 7).getSchedule().delays(random).stream().toList();
		assertThat(delays).containsExactly(millis(50), millis(100), millis(200), millis(400), millis(500),
				millis(500));
	}

	@Test
	void equalIsHalfTheCeilingPlusUniformOverTheOtherHalf() {
		ScriptedRandom random = new ScriptedRandom(0.0, 0.5, 0.25, ALMOST_ONE);
		List<Duration> delays = policy(Jitter.EQUAL, 2.0, 5).getSchedule().delays(random).stream().toList();
		// Ceilings 100, 200, 400, 800 ms: v/2 + u × v/2.
		assertThat(delays).containsExactly(millis(50), millis(150), millis(250), Duration.ofNanos(799_999_999));
	}

	@Test
	void equalSplitsAnOddCeilingWithoutLosingItsUpperHalf() {
		assertThat(Jitter.EQUAL.delayNanos(101, 0, 0, 101, new ScriptedRandom(0.0))).isEqualTo(50);
		assertThat(Jitter.EQUAL.delayNanos(101, 0, 0, 101, new ScriptedRandom(ALMOST_ONE))).isEqualTo(100);
	}

	@Test
	void decorrelatedDrawsBetweenBaseDelayAndThreeTimesThePreviousStartingFromBaseDelay() {
		ScriptedRandom random = new ScriptedRandom(0.5, 0.5, 0.0, 0.5);
		List<Duration> delays = policy(Jitter.DECORRELATED, 2.0, 5).getSchedule().delays(random).stream().toList();
		// uniform(100, 300) = 200; uniform(100, 600) = 350; uniform(100, 1050) = 100; uniform(100, 300) = 200.
		assertThat(delays).containsExactly(millis(200), millis(350), millis(100), millis(200));
	}

	@Test
	void decorrelatedIsCappedAtMaxDelay() {
		ScriptedRandom random = new ScriptedRandom(0.75, 0.75, 0.75);
		List<Duration> delays = policy(Jitter.DECORRELATED, 2.0, 4).getSchedule().delays(random).stream().toList();
		// uniform(100, 300) = 250; uniform(100, 750) = 587.5; uniform(100, 1762.5) = 1346.875, capped to 1000.
		assertThat(delays).containsExactly(millis(250), Duration.ofNanos(587_500_000), millis(1000));
	}

	@Test
	void decorrelatedCanFallBackToBaseDelayAfterReachingTheCap() {
		ScriptedRandom random = new ScriptedRandom(ALMOST_ONE, ALMOST_ONE, ALMOST_ONE, 0.0);
		List<Duration> delays = policy(Jitter.DECORRELATED, 2.0, 5).getSchedule().delays(random).stream().toList();
		assertThat(delays.get(2)).isEqualTo(millis(1000));
		assertThat(delays.get(3)).isEqualTo(millis(100));
	}

	@Test
	void decorrelatedIgnoresTheMultiplier() {
		double[] draws = { 0.5, 0.25, 0.75, 0.125 };
		List<Duration> doubling = policy(Jitter.DECORRELATED, 2.0, 5).getSchedule().delays(new ScriptedRandom(draws))
			.stream()
			.toList();
		List<Duration> fixed = policy(Jitter.DECORRELATED, 1.0, 5).getSchedule().delays(new ScriptedRandom(draws)).stream().toList();
		assertThat(fixed).isEqualTo(doubling);
	}

	@Test
	void decorrelatedWithZeroBaseDelayStaysAtZero() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.baseDelay(Duration.ZERO)
			.jitter(Jitter.DECORRELATED)
			.maxAttempts(4)
			.build();
		List<Duration> delays = policy.getSchedule().delays(new ScriptedRandom(0.5, ALMOST_ONE, 0.25)).stream().toList();
		assertThat(delays).containsOnly(Duration.ZERO).hasSize(3);
	}

	@Test
	void onlyDecorrelatedIsStateful() {
		assertThat(Stream.of(Jitter.values()).filter(Jitter::isStateful)).containsExactly(Jitter.DECORRELATED);
	}

	private static BackoffPolicy policy(Jitter jitter, double multiplier, int maxAttempts) {
		return BackoffPolicy.builder()
			.baseDelay(millis(100))
			.maxDelay(millis(1000))
			.multiplier(multiplier)
			.jitter(jitter)
			.maxAttempts(maxAttempts)
			.build();
	}

	private static Duration millis(long millis) {
		return Duration.ofMillis(millis);
	}

}
