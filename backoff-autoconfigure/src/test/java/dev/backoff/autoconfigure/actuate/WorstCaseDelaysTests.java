package dev.backoff.autoconfigure.actuate;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffPolicy;
import dev.backoff.Jitter;
import dev.backoff.RecordingSleeper;
import dev.backoff.RetryAfter;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint's worst cases: the true bound counts every retry's longest wait of the schedule,
 * the throttling schedule and a server's hint up to {@code max-retry-after}; the schedule's own
 * keeps the figure shown before. A call that a server keeps asking to wait reaches the bound.
 */
class WorstCaseDelaysTests {

	private static final BackoffPolicy HINTED = BackoffPolicy.builder()
		.maxAttempts(4)
		.baseDelay(Duration.ofMillis(100))
		.maxDelay(Duration.ofSeconds(2))
		.maxRetryAfter(Duration.ofSeconds(5))
		.build();

	@Test
	void aServerHintUpToMaxRetryAfterIsPartOfTheWorstCaseAndACallCanWaitThatLong() throws Exception {
		// Before: 700 ms (100 + 200 + 400), while a server asking for 5 s three times makes a call wait 15 s.
		assertThat(WorstCaseDelays.total(HINTED)).isEqualTo(Duration.ofSeconds(15));
		assertThat(WorstCaseDelays.schedule(HINTED)).isEqualTo(Duration.ofMillis(700));
		RecordingSleeper sleeper = new RecordingSleeper();
		AtomicInteger attempts = new AtomicInteger();
		String result = BackoffExecutor.builder().sleeper(sleeper).build().call(HINTED, () -> {
			if (attempts.incrementAndGet() < 4) {
				throw new Hinted(Duration.ofSeconds(5));
			}
			return "ok";
		});
		assertThat(result).isEqualTo("ok");
		assertThat(sleeper.sleeps().stream().reduce(Duration.ZERO, Duration::plus))
			.isEqualTo(WorstCaseDelays.total(HINTED));
	}

	@Test
	void withoutMaxRetryAfterAHintIsHonouredUpToTheLongestCapSoEachRetryMayWaitThatLong() {
		BackoffPolicy policy = BackoffPolicy.builder().maxAttempts(3).build();
		// max-retry-after defaults to max-delay (20 s): two retries, 40 s; the schedule alone, 300 ms.
		assertThat(WorstCaseDelays.total(policy)).isEqualTo(Duration.ofSeconds(40));
		assertThat(WorstCaseDelays.schedule(policy)).isEqualTo(Duration.ofMillis(300));
	}

	@Test
	void theThrottlingScheduleCountsRetryByRetryAboveAShorterHintCap() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.maxAttempts(5)
			.baseDelay(Duration.ofMillis(100))
			.maxDelay(Duration.ofSeconds(2))
			.jitter(Jitter.NONE)
			.throttleBaseDelay(Duration.ofSeconds(1))
			.throttleMaxDelay(Duration.ofSeconds(4))
			.maxRetryAfter(Duration.ofMillis(1500))
			.build();
		// Throttled waits 1 s, 2 s, 4 s, 4 s; a hint of 1.5 s is longer than the first: 1.5 + 2 + 4 + 4.
		assertThat(WorstCaseDelays.total(policy)).isEqualTo(Duration.ofMillis(11_500));
		assertThat(WorstCaseDelays.schedule(policy)).isEqualTo(Duration.ofSeconds(11));
	}

	@Test
	void maxElapsedBoundsBoth() {
		BackoffPolicy policy = HINTED.toBuilder().maxElapsed(Duration.ofSeconds(3)).build();
		assertThat(WorstCaseDelays.total(policy)).isEqualTo(Duration.ofSeconds(3));
		assertThat(WorstCaseDelays.schedule(policy)).isEqualTo(Duration.ofMillis(700));
	}

	@Test
	void aMillionRetriesAreAddedUpOnceTheirWaitsStopGrowing() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.maxAttempts(1_000_001)
			.baseDelay(Duration.ofMillis(1))
			.maxDelay(Duration.ofSeconds(1))
			.maxRetryAfter(Duration.ofMillis(500))
			.build();
		// 1, 2, 4 … 512 ms (the hint's 500 ms above the first nine), then 1 s for each of the rest.
		long first = 9 * 500 + 512;
		assertThat(WorstCaseDelays.total(policy)).isEqualTo(Duration.ofMillis(first + (1_000_000 - 10) * 1000L));
	}

	@Test
	void aWorstCaseBeyondTheLongestDurationSaturates() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.maxAttempts(Integer.MAX_VALUE)
			.maxDelay(BackoffPolicy.MAX_DURATION)
			.maxRetryAfter(BackoffPolicy.MAX_DURATION)
			.build();
		assertThat(WorstCaseDelays.total(policy)).isEqualTo(BackoffPolicy.MAX_DURATION);
	}

	static class Hinted extends RuntimeException implements RetryAfter {

		private final Duration hint;

		Hinted(Duration hint) {
			this.hint = hint;
		}

		@Override
		public Duration getRetryAfter() {
			return this.hint;
		}

	}

}
