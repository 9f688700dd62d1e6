package dev.backoff.benchmarks.overhead;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

import dev.backoff.BackoffDelays;
import dev.backoff.BackoffPolicy;
import dev.backoff.Jitter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The cost of computing one delay with {@link BackoffDelays#nextNanos()}, per jitter, on a
 * long-lived sequence with unlimited attempts and the default delays (base 100 ms, ×2, max 20 s):
 * after 8 retries every ceiling is the cap, so this is the steady state of a long outage.
 * {@code growing} instead uses a multiplier so small that the ceiling never reaches the cap
 * within a run, so every delay recomputes {@code base × multiplier^(n−1)}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class DelayBenchmark {

	@Param({ "NONE", "FULL", "EQUAL", "DECORRELATED" })
	public Jitter jitter;

	@Param({ "capped", "growing" })
	public String ceiling;

	private BackoffPolicy policy;

	private RandomGenerator random;

	private BackoffDelays delays;

	@Setup(Level.Iteration)
	public void setUp() {
		BackoffPolicy.Builder builder = BackoffPolicy.builder().maxAttempts(Integer.MAX_VALUE).jitter(this.jitter);
		if ("growing".equals(this.ceiling)) {
			// 100 ms × 1.0000001^n reaches the cap (Long.MAX_VALUE ns) only after about 2.5e8
			// retries; a 1 s iteration makes far fewer, and the sequence restarts each iteration.
			builder.multiplier(1.0000001).maxDelay(BackoffPolicy.MAX_DURATION);
		}
		this.policy = builder.build();
		this.random = ThreadLocalRandom.current();
		this.delays = this.policy.getSchedule().delays(this.random);
	}

	@Benchmark
	public long nextNanos() {
		return this.delays.nextNanos();
	}

}
