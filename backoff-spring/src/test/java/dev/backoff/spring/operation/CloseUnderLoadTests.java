package dev.backoff.spring.operation;

import java.io.IOException;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.spring.EnabledBackoff;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The context closed while thousands of {@code CompletableFuture} calls race through their
 * retries with no wait between attempts: at that moment timer threads hold retries they have
 * taken off the queue but not yet run, and the executor cancels those itself. Every call must
 * still end, with its original failure.
 */
class CloseUnderLoadTests {

	private static final int CLOSES = 30;

	private static final int CALLS = 2_000;

	private static final long SEED = 29L;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		// More timer threads, more retries taken off the queue as it closes.
		.withPropertyValues("backoff.scheduler.pool-size=8");

	@Test
	void everyCallEndsWithItsOriginalFailureWhenTheContextClosesUnderLoad() throws InterruptedException {
		SplittableRandom random = new SplittableRandom(SEED);
		long incomplete = 0;
		long notOriginal = 0;
		long attempts = 0;
		for (int close = 0; close < CLOSES; close++) {
			ExecutorService applicationExecutor = Executors.newFixedThreadPool(2);
			// Closed after a seeded number of attempts rather than after a wall-clock pause, within
			// the first rounds of retries: every call is in flight from the first round on, and the
			// race is at the close, not before it. Without BackoffScheduler.afterExecute's retry.run(),
			// a run left 26 calls incomplete; one closing within up to 20 rounds, 8, in 2.4 times as long.
			FailingOnItsOwnExecutor service = new FailingOnItsOwnExecutor(applicationExecutor,
					CALLS + random.nextInt(4 * CALLS));
			@SuppressWarnings("unchecked")
			CompletableFuture<String>[] futures = new CompletableFuture[CALLS];
			ConfigurableApplicationContext[] closed = new ConfigurableApplicationContext[1];
			this.runner.withBean(FailingOnItsOwnExecutor.class, () -> service).run((context) -> {
				FailingOnItsOwnExecutor proxy = context.getBean(FailingOnItsOwnExecutor.class);
				for (int i = 0; i < CALLS; i++) {
					futures[i] = proxy.call();
				}
				assertThat(service.reachedCloseAt.await(30, TimeUnit.SECONDS)).isTrue();
				closed[0] = context;
			});
			assertThat(closed[0].isActive()).isFalse();
			// Attempts still in flight on the application's executor end their calls as they fail.
			applicationExecutor.shutdown();
			assertThat(applicationExecutor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
			for (CompletableFuture<String> future : futures) {
				if (!future.isDone()) {
					incomplete++;
				}
				else if (!(future.handle((value, ex) -> ex).getNow(null) instanceof AttemptFailed)) {
					notOriginal++;
				}
			}
			attempts += service.attempts.get();
		}
		System.out.printf("Backoff reliability: %d closes of %d racing calls (%d calls, %d attempts): "
				+ "%d incomplete%n", CLOSES, CALLS, CLOSES * CALLS, attempts, incomplete);
		assertThat(incomplete).as("calls never completed").isZero();
		assertThat(notOriginal).as("calls completed without their original failure").isZero();
	}

	static class AttemptFailed extends IOException {

		AttemptFailed() {
			super("attempt failed");
		}

	}

	static class FailingOnItsOwnExecutor {

		private final ExecutorService executor;

		private final long closeAt;

		final AtomicLong attempts = new AtomicLong();

		final CountDownLatch reachedCloseAt = new CountDownLatch(1);

		FailingOnItsOwnExecutor(ExecutorService executor, long closeAt) {
			this.executor = executor;
			this.closeAt = closeAt;
		}

		@Backoff(maxAttempts = "1000", baseDelay = "0ms", maxDelay = "0ms", jitter = Jitter.NONE)
		public CompletableFuture<String> call() {
			if (this.attempts.incrementAndGet() == this.closeAt) {
				this.reachedCloseAt.countDown();
			}
			return CompletableFuture.supplyAsync(() -> {
				throw new CompletionException(new AttemptFailed());
			}, this.executor);
		}

	}

}
