package dev.backoff.benchmarks.overhead;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Proves the harness of {@link AttemptTimeoutBenchmark}: every benchmark returns the attempt's
 * result, only a timed attempt completed later schedules a timer, and it leaves none queued.
 */
class AttemptTimeoutBenchmarkTests {

	private final AttemptTimeoutBenchmark benchmark = new AttemptTimeoutBenchmark();

	private final AtomicInteger scheduled = new AtomicInteger();

	@BeforeEach
	void start() {
		this.benchmark.start();
		this.benchmark.stop();
		// The benchmark's scheduler, counting what is scheduled: a removed task leaves no other trace.
		this.benchmark.scheduler = new ScheduledThreadPoolExecutor(1) {
			@Override
			public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
				AttemptTimeoutBenchmarkTests.this.scheduled.incrementAndGet();
				return super.schedule(command, delay, unit);
			}
		};
		this.benchmark.scheduler.setRemoveOnCancelPolicy(true);
	}

	@AfterEach
	void stop() {
		this.benchmark.stop();
	}

	@Test
	void withoutATimeoutOrWithAnAttemptCompleteAtOnceNoTimerIsScheduled() {
		assertThat(this.benchmark.atOnce_0_noTimeout()).isEqualTo(AttemptTimeoutBenchmark.RESULT);
		assertThat(this.benchmark.atOnce_1_attemptTimeout()).isEqualTo(AttemptTimeoutBenchmark.RESULT);
		assertThat(this.benchmark.later_0_noTimeout()).isEqualTo(AttemptTimeoutBenchmark.RESULT);
		assertThat(this.scheduled).hasValue(0);
	}

	@Test
	void aTimedAttemptCompletedLaterSchedulesOneTimerAndCancelsIt() {
		assertThat(this.benchmark.timed.getAttemptTimeout()).isNotNull();
		assertThat(this.benchmark.later_1_attemptTimeout()).isEqualTo(AttemptTimeoutBenchmark.RESULT);
		assertThat(this.scheduled).hasValue(1);
		assertThat(this.benchmark.scheduler.getQueue()).isEmpty();
	}

	@Test
	void theJdksTimeoutReturnsTheResult() {
		assertThat(this.benchmark.later_2_orTimeout()).isEqualTo(AttemptTimeoutBenchmark.RESULT);
	}

}
