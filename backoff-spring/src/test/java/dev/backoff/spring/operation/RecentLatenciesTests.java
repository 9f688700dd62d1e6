package dev.backoff.spring.operation;

import java.time.Duration;

import dev.backoff.ManualNanoClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

/**
 * {@link RecentLatencies} on its own, on a manual clock: no percentile before 100 answers, one
 * read per second, the window's answers only, and only the percentile it was made for.
 */
class RecentLatenciesTests {

	private final ManualNanoClock clock = new ManualNanoClock();

	private final RecentLatencies latencies = new RecentLatencies(95, this.clock);

	@Test
	void givesNothingBeforeItsHundredthAnswerThenThePercentile() {
		for (int millis = 1; millis <= 99; millis++) {
			this.latencies.record(Duration.ofMillis(millis).toNanos());
		}
		assertThat(this.latencies.percentile(95)).isNull();
		this.latencies.record(Duration.ofMillis(100).toNanos());
		assertThat(millis(this.latencies.percentile(95))).isCloseTo(95, within(1.0));
	}

	@Test
	void aReadServesForASecond() {
		record(100, Duration.ofMillis(20));
		assertThat(millis(this.latencies.percentile(95))).isCloseTo(20, within(0.5));
		record(1000, Duration.ofMillis(80));
		this.clock.advance(Duration.ofMillis(999));
		assertThat(millis(this.latencies.percentile(95))).isCloseTo(20, within(0.5));
		this.clock.advance(Duration.ofMillis(1));
		assertThat(millis(this.latencies.percentile(95))).isCloseTo(80, within(1.0));
	}

	@Test
	void answersOlderThanTheWindowAreForgotten() {
		record(100, Duration.ofMillis(80));
		this.clock.advance(Duration.ofSeconds(40));
		record(100, Duration.ofMillis(20));
		// Both in the window, half and half: the p95 is among the slow ones.
		assertThat(millis(this.latencies.percentile(95))).isCloseTo(80, within(1.0));
		this.clock.advance(Duration.ofSeconds(21));
		// The 80ms answers, 61s old, have left it; the 20ms ones, 21s old, have not.
		assertThat(millis(this.latencies.percentile(95))).isCloseTo(20, within(0.5));
		this.clock.advance(Duration.ofSeconds(40));
		assertThat(this.latencies.percentile(95)).isNull();
	}

	@Test
	void anotherPercentileIsRefusedSayingWhatToDo() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.latencies.percentile(99))
			.withMessage("These answer times give p95.0, not p99.0: make a RecentLatencies for each percentile");
	}

	private void record(int answers, Duration time) {
		for (int i = 0; i < answers; i++) {
			this.latencies.record(time.toNanos());
		}
	}

	private static double millis(Duration duration) {
		assertThat(duration).isNotNull();
		return duration.toNanos() / 1e6;
	}

}
