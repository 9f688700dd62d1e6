package dev.backoff.spring.operation;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.Sleeper;
import dev.backoff.spring.CountingSleeper;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.metrics.BackoffMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Interrupting a thread that really waits for its next attempt, and disposing a {@link Mono}
 * during its wait: the call ends at once with its original failure and no later attempt runs.
 * (Cancelling a {@code CompletableFuture} is covered by {@code BackoffAsyncTests}.)
 */
class InterruptionTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
		.withBean(Remote.class);

	@Test
	void interruptingAThreadWaitingForItsNextAttemptEndsTheCallWithTheOriginalFailure() {
		this.runner.withBean(BlockingSleeper.class).run((context) -> {
			Remote remote = context.getBean(Remote.class);
			BlockingSleeper sleeper = context.getBean(BlockingSleeper.class);
			AtomicReference<Throwable> thrown = new AtomicReference<>();
			AtomicBoolean interruptFlag = new AtomicBoolean();
			Thread caller = new Thread(() -> {
				try {
					remote.fetch();
				}
				catch (Throwable ex) {
					thrown.set(ex);
					interruptFlag.set(Thread.currentThread().isInterrupted());
				}
			}, "interrupted-caller");
			caller.start();
			assertThat(sleeper.waiting.await(10, TimeUnit.SECONDS)).as("the caller waits for its retry").isTrue();
			caller.interrupt();
			caller.join(TimeUnit.SECONDS.toMillis(10));
			assertThat(caller.isAlive()).as("the caller still waits").isFalse();
			assertThat(thrown.get()).isSameAs(remote.lastFailure());
			assertThat(thrown.get().getSuppressed()).hasAtLeastOneElementOfType(InterruptedException.class);
			assertThat(interruptFlag).isTrue();
			assertThat(remote.attempts()).isEqualTo(1);
			assertThat(outcome(context.getBean(MeterRegistry.class), "Remote.fetch", "interrupted")).isEqualTo(1);
		});
	}

	@Test
	void disposingAMonoDuringItsWaitCancelsThePendingRetry() {
		this.runner.withBean(CountingSleeper.class).run((context) -> {
			Remote remote = context.getBean(Remote.class);
			VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();
			try {
				Disposable disposed = remote.mono().subscribe((value) -> { }, (ex) -> { });
				assertThat(remote.attempts()).isEqualTo(1);
				disposed.dispose();
				time.advanceTimeBy(Duration.ofHours(1));
				assertThat(remote.attempts()).as("attempts after dispose").isEqualTo(1);
				assertThat(outcome(context.getBean(MeterRegistry.class), "Remote.mono", "interrupted")).isEqualTo(1);
				// The same call left alone does make its next attempt after the wait.
				remote.mono().subscribe((value) -> { }, (ex) -> { });
				assertThat(remote.attempts()).isEqualTo(2);
				time.advanceTimeBy(Duration.ofSeconds(10));
				assertThat(remote.attempts()).isEqualTo(3);
			}
			finally {
				VirtualTimeScheduler.reset();
			}
		});
	}

	private static long outcome(MeterRegistry registry, String method, String outcome) {
		return (long) registry.get(BackoffMetrics.CALLS).tags("method", method, "outcome", outcome).counter().count();
	}

	/**
	 * Really waits, as {@link Sleeper#THREAD} does, but until interrupted rather than for the
	 * delay; then throws {@link InterruptedException} with the flag cleared, as a sleep does.
	 */
	static class BlockingSleeper implements Sleeper {

		final CountDownLatch waiting = new CountDownLatch(1);

		private final CountDownLatch never = new CountDownLatch(1);

		@Override
		public void sleep(Duration delay) throws InterruptedException {
			this.waiting.countDown();
			this.never.await();
		}

	}

	static class Remote {

		private final AtomicInteger attempts = new AtomicInteger();

		private final AtomicReference<IOException> lastFailure = new AtomicReference<>();

		int attempts() {
			return this.attempts.get();
		}

		IOException lastFailure() {
			return this.lastFailure.get();
		}

		@Backoff(maxAttempts = "3", baseDelay = "10s", maxDelay = "10s", jitter = Jitter.NONE)
		public String fetch() throws IOException {
			this.attempts.incrementAndGet();
			IOException failure = new IOException("unavailable");
			this.lastFailure.set(failure);
			throw failure;
		}

		@Backoff(maxAttempts = "3", baseDelay = "10s", maxDelay = "10s", jitter = Jitter.NONE)
		public Mono<String> mono() {
			this.attempts.incrementAndGet();
			return Mono.error(new IOException("unavailable"));
		}

	}

}
