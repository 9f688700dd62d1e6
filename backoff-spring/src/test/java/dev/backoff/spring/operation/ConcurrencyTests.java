package dev.backoff.spring.operation;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.spring.BackoffConfiguration;
import dev.backoff.spring.CountingSleeper;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.metrics.BackoffMetrics;
import dev.backoff.spring.operation.BackoffScheduler;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many calls at once through one {@code @Backoff} bean: every call ends exactly once with the
 * outcome its (seeded, so reproducible) failures call for, the meters add up, nothing is
 * swallowed; and the non-blocking path holds thousands of pending retries on a few threads,
 * then ends each with its original failure when the context closes.
 */
class ConcurrencyTests {

	private static final int THREADS = 32;

	private static final int CALLS_PER_THREAD = 20_000;

	private static final int MAX_ATTEMPTS = 5;

	private static final double FAILURE_RATE = 0.3;

	private static final int IN_FLIGHT = 10_000;

	private static final long SEED = 8L;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
		.withBean(CountingSleeper.class);

	@Test
	void everyConcurrentCallEndsOnceWithTheOutcomeItsFailuresCallFor() {
		this.runner.withBean(Flaky.class).run((context) -> {
			Flaky flaky = context.getBean(Flaky.class);
			LongAdder successes = new LongAdder();
			LongAdder exhausted = new LongAdder();
			LongAdder wrongOutcomes = new LongAdder();
			AtomicReference<Throwable> unexpected = new AtomicReference<>();
			CountDownLatch start = new CountDownLatch(1);
			List<Thread> threads = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				long seed = SEED + t;
				Thread thread = new Thread(() -> {
					// The same seed twice: one drives the bean's failures, one predicts them.
					SplittableRandom attempts = new SplittableRandom(seed);
					SplittableRandom prediction = new SplittableRandom(seed);
					awaitQuietly(start);
					for (int i = 0; i < CALLS_PER_THREAD; i++) {
						boolean shouldSucceed = predictSuccess(prediction);
						boolean succeeded;
						try {
							succeeded = "ok".equals(flaky.call(attempts));
							successes.increment();
						}
						catch (FlakyException ex) {
							succeeded = false;
							exhausted.increment();
						}
						catch (Throwable ex) {
							unexpected.compareAndSet(null, ex);
							return;
						}
						if (succeeded != shouldSucceed) {
							wrongOutcomes.increment();
						}
					}
				}, "caller-" + t);
				threads.add(thread);
				thread.start();
			}
			long began = System.nanoTime();
			start.countDown();
			for (Thread thread : threads) {
				thread.join(TimeUnit.SECONDS.toMillis(120));
				assertThat(thread.isAlive()).as("%s still running", thread.getName()).isFalse();
			}
			long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
			long calls = (long) THREADS * CALLS_PER_THREAD;
			assertThat(unexpected.get()).isNull();
			assertThat(successes.sum() + exhausted.sum()).isEqualTo(calls);
			assertThat(wrongOutcomes.sum()).isZero();
			assertThat(exhausted.sum()).isPositive();
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(sum(registry, BackoffMetrics.CALLS)).isEqualTo(calls);
			assertThat(sumOutcome(registry, "success") + sumOutcome(registry, "success_after_retry"))
				.isEqualTo(successes.sum());
			assertThat(sumOutcome(registry, "exhausted")).isEqualTo(exhausted.sum());
			long retries = flaky.failures() - exhausted.sum();
			assertThat(sum(registry, BackoffMetrics.RETRIES)).isEqualTo(retries);
			assertThat(context.getBean(CountingSleeper.class).sleeps()).isEqualTo(retries);
			assertThat(flaky.attempts()).isEqualTo(calls + retries);
			System.out.printf("Backoff reliability: %d threads x %d calls = %d calls, %d attempts, %d retries, "
					+ "%d exhausted, in %d ms%n", THREADS, CALLS_PER_THREAD, calls, flaky.attempts(), retries,
					exhausted.sum(), tookMillis);
		});
	}

	@Test
	void holdsTenThousandPendingRetriesOnFourThreadsAndEndsThemAllWhenTheContextCloses() {
		this.runner.withAllowBeanDefinitionOverriding(true)
			.withBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, BackoffScheduler.class,
				() -> new BackoffScheduler(4, java.util.concurrent.Executors.defaultThreadFactory()))
			.withBean(FirstAttemptFails.class, () -> new FirstAttemptFails(IN_FLIGHT))
			.run((context) -> {
				FirstAttemptFails service = context.getBean(FirstAttemptFails.class);
				BackoffScheduler scheduler = context.getBean(BackoffConfiguration.SCHEDULER_BEAN_NAME,
						BackoffScheduler.class);
				@SuppressWarnings("unchecked")
				CompletableFuture<String>[] futures = new CompletableFuture[IN_FLIGHT];
				// Warm up the path once, so that class loading is not counted as per-call heap.
				CompletableFuture<String> warmUp = service.warmUp();
				assertThat(warmUp.cancel(false)).isTrue();
				long heapBefore = usedHeapAfterGc();
				long began = System.nanoTime();
				for (int i = 0; i < IN_FLIGHT; i++) {
					futures[i] = service.call(i);
				}
				long startMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
				long heapAfter = usedHeapAfterGc();
				long bytesPerRetry = (heapAfter - heapBefore) / IN_FLIGHT;
				assertThat(scheduler.getQueue()).hasSize(IN_FLIGHT);
				assertThat(scheduler.getCorePoolSize()).isEqualTo(4);
				assertThat(scheduler.getLargestPoolSize()).isLessThanOrEqualTo(4);
				assertThat(futures).noneMatch(CompletableFuture::isDone);
				assertThat(bytesPerRetry).isLessThan(10 * 1024);
				began = System.nanoTime();
				context.close();
				long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
				for (int i = 0; i < IN_FLIGHT; i++) {
					Throwable failure = futures[i].handle((value, ex) -> ex).getNow(null);
					assertThat(failure).as("failure of call %d", i).isSameAs(service.failure(i));
				}
				assertThat(service.attempts()).isEqualTo(IN_FLIGHT + 1);
				assertThat(liveBackoffThreadsAfterJoin()).isEmpty();
				System.out.printf("Backoff reliability: %d retries in flight on %d threads, %d bytes of heap per "
						+ "in-flight retry (%d bytes in all); started in %d ms, ended by close in %d ms%n", IN_FLIGHT,
						scheduler.getLargestPoolSize(), bytesPerRetry, heapAfter - heapBefore, startMillis,
						closeMillis);
			});
	}

	private static boolean predictSuccess(SplittableRandom random) {
		for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
			if (random.nextDouble() >= FAILURE_RATE) {
				return true;
			}
		}
		return false;
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static long sum(MeterRegistry registry, String name) {
		return (long) registry.find(name).counters().stream().mapToDouble(Counter::count).sum();
	}

	private static long sumOutcome(MeterRegistry registry, String outcome) {
		return (long) registry.find(BackoffMetrics.CALLS)
			.tag("outcome", outcome)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	private static long usedHeapAfterGc() {
		Runtime runtime = Runtime.getRuntime();
		long used = Long.MAX_VALUE;
		for (int i = 0; i < 5; i++) {
			System.gc();
			used = Math.min(used, runtime.totalMemory() - runtime.freeMemory());
		}
		return used;
	}

	/**
	 * The scheduler's threads still alive once close has returned, given each a moment to
	 * finish exiting: the pool counts as terminated just before its last thread's run ends.
	 */
	private static List<String> liveBackoffThreadsAfterJoin() throws InterruptedException {
		Set<Thread> threads = Thread.getAllStackTraces().keySet();
		List<String> alive = new ArrayList<>();
		for (Thread thread : threads) {
			if (thread.getName().startsWith("backoff-")) {
				thread.join(TimeUnit.SECONDS.toMillis(10));
				if (thread.isAlive()) {
					alive.add(thread.getName());
				}
			}
		}
		return alive;
	}

	static class FlakyException extends IOException {

		FlakyException() {
			super("flaky");
		}

	}

	static class Flaky {

		private final LongAdder attempts = new LongAdder();

		private final LongAdder failures = new LongAdder();

		@Backoff(maxAttempts = "" + MAX_ATTEMPTS, baseDelay = "1ms", maxDelay = "1ms", jitter = Jitter.NONE)
		public String call(SplittableRandom random) throws FlakyException {
			this.attempts.increment();
			if (random.nextDouble() < FAILURE_RATE) {
				this.failures.increment();
				throw new FlakyException();
			}
			return "ok";
		}

		long attempts() {
			return this.attempts.sum();
		}

		long failures() {
			return this.failures.sum();
		}

	}

	static class FirstAttemptFails {

		private final AtomicReferenceArray<IOException> failures;

		private final LongAdder attempts = new LongAdder();

		FirstAttemptFails(int calls) {
			// Made before the heap is measured: the figure is Backoff's own, not the failures'.
			this.failures = new AtomicReferenceArray<>(calls);
			for (int i = 0; i < calls; i++) {
				this.failures.set(i, new IOException("call " + i + " failed"));
			}
		}

		@Backoff(maxAttempts = "2", baseDelay = "10s", maxDelay = "10s", jitter = Jitter.NONE)
		public CompletableFuture<String> call(int id) {
			this.attempts.increment();
			return CompletableFuture.failedFuture(this.failures.get(id));
		}

		@Backoff(maxAttempts = "2", baseDelay = "10s", maxDelay = "10s", jitter = Jitter.NONE)
		public CompletableFuture<String> warmUp() {
			this.attempts.increment();
			return CompletableFuture.failedFuture(new IOException("warm-up"));
		}

		IOException failure(int id) {
			return this.failures.get(id);
		}

		long attempts() {
			return this.attempts.sum();
		}

	}

}
