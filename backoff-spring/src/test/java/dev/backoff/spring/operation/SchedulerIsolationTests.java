package dev.backoff.spring.operation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.spring.EnabledBackoff;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A retried attempt of a {@code CompletableFuture} method runs off the scheduler's timer
 * threads: one method whose attempt blocks cannot hold up another method's retry.
 */
class SchedulerIsolationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(Slow.class)
		.withBean(Quick.class)
		.withPropertyValues("backoff.scheduler.pool-size=1", "backoff.defaults.base-delay=1ms",
				"backoff.defaults.jitter=none", "backoff.defaults.max-attempts=2");

	@Test
	void aBlockedAttemptDoesNotHoldUpAnotherMethodsRetry() {
		this.runner.run((context) -> {
			Slow slow = context.getBean(Slow.class);
			CompletableFuture<String> slowCall = slow.call();
			assertThat(slow.blocked().await(10, TimeUnit.SECONDS)).as("slow's retry started").isTrue();
			// The only timer thread is free: the quick method's retry runs while slow's is blocked.
			assertThat(context.getBean(Quick.class).call().get(10, TimeUnit.SECONDS)).isEqualTo("quick 2");
			assertThat(slowCall).isNotDone();
			slow.release().countDown();
			assertThat(slowCall.get(10, TimeUnit.SECONDS)).isEqualTo("slow 2");
		});
	}

	static class Slow {

		private final CountDownLatch blocked = new CountDownLatch(1);

		private final CountDownLatch release = new CountDownLatch(1);

		private final AtomicInteger calls = new AtomicInteger();

		CountDownLatch blocked() {
			return this.blocked;
		}

		CountDownLatch release() {
			return this.release;
		}

		@Backoff
		public CompletableFuture<String> call() throws InterruptedException {
			int call = this.calls.incrementAndGet();
			if (call == 1) {
				return CompletableFuture.failedFuture(new IllegalStateException("busy"));
			}
			// Synchronous work in the attempt itself, on whatever thread runs it.
			this.blocked.countDown();
			this.release.await(10, TimeUnit.SECONDS);
			return CompletableFuture.completedFuture("slow " + call);
		}

	}

	static class Quick {

		private final AtomicInteger calls = new AtomicInteger();

		@Backoff
		public CompletableFuture<String> call() {
			int call = this.calls.incrementAndGet();
			if (call == 1) {
				return CompletableFuture.failedFuture(new IllegalStateException("busy"));
			}
			return CompletableFuture.completedFuture("quick " + call);
		}

	}

}
