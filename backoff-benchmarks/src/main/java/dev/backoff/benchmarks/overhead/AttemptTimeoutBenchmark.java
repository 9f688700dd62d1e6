package dev.backoff.benchmarks.overhead;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The cost of {@code attemptTimeout} on a {@code CompletableFuture} call that succeeds at its
 * first attempt, through the core executor only ({@link BackoffExecutor#executeAsync}, no
 * Spring): with no timeout, and with a 2 s one that never fires. Two shapes:
 * {@code atOnce}, an attempt whose future is already complete when the task returns it (no
 * timer is needed), and {@code later}, one completed by the caller just after the call has
 * started, so that with a timeout one timer is scheduled and then cancelled. The scheduler is a
 * one-thread {@link ScheduledThreadPoolExecutor} that removes cancelled tasks, as the Spring
 * integration's is. {@code later_2_orTimeout} is the JDK's own per-future timeout on the same
 * future, for reference.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class AttemptTimeoutBenchmark {

	static final String RESULT = "ok";

	private static final CompletableFuture<String> COMPLETED = CompletableFuture.completedFuture(RESULT);

	final BackoffPolicy untimed = BackoffPolicy.builder().maxAttempts(3).build();

	final BackoffPolicy timed = this.untimed.toBuilder().attemptTimeout(Duration.ofSeconds(2)).build();

	final BackoffExecutor executor = BackoffExecutor.builder().build();

	ScheduledThreadPoolExecutor scheduler;

	/** The attempt the {@code later} benchmarks complete after the call started. */
	private CompletableFuture<String> attempt;

	private final Supplier<CompletableFuture<String>> atOnce = () -> COMPLETED;

	private final Supplier<CompletableFuture<String>> later = () -> {
		this.attempt = new CompletableFuture<>();
		return this.attempt;
	};

	@Setup(Level.Trial)
	public void start() {
		this.scheduler = new ScheduledThreadPoolExecutor(1);
		this.scheduler.setRemoveOnCancelPolicy(true);
	}

	@TearDown(Level.Trial)
	public void stop() {
		this.scheduler.shutdownNow();
	}

	@Benchmark
	public String atOnce_0_noTimeout() {
		return call(this.untimed, this.atOnce);
	}

	@Benchmark
	public String atOnce_1_attemptTimeout() {
		return call(this.timed, this.atOnce);
	}

	@Benchmark
	public String later_0_noTimeout() {
		return callCompletedLater(this.untimed);
	}

	@Benchmark
	public String later_1_attemptTimeout() {
		return callCompletedLater(this.timed);
	}

	@Benchmark
	public String later_2_orTimeout() {
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> call = attempt.orTimeout(2, TimeUnit.SECONDS);
		attempt.complete(RESULT);
		return call.join();
	}

	private String call(BackoffPolicy policy, Supplier<CompletableFuture<String>> task) {
		return this.executor.executeAsync(policy, null, BackoffListener.NONE, task, this.scheduler).join();
	}

	private String callCompletedLater(BackoffPolicy policy) {
		CompletableFuture<String> call = this.executor.executeAsync(policy, null, BackoffListener.NONE, this.later,
				this.scheduler);
		this.attempt.complete(RESULT);
		return call.join();
	}

}
