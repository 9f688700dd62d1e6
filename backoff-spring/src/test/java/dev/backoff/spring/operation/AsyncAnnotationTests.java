package dev.backoff.spring.operation;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.Outcome;
import dev.backoff.spring.CountingSleeper;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.EndRecorder;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @Async} and {@code @Backoff} on one method: the asynchronous hand-off is outside the
 * retries, as with Spring Framework's {@code @Retryable}, so the method is retried on the
 * executor's thread and its real outcome is reported.
 */
class AsyncAnnotationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withUserConfiguration(AsyncConfiguration.class)
		.withBean(EndRecorder.class)
		.withBean(CountingSleeper.class)
		.withBean(Mailer.class)
		.withPropertyValues("backoff.defaults.max-attempts=3");

	@Test
	void anAsyncVoidMethodIsRetriedOnTheExecutorsThread() {
		this.runner.run((context) -> {
			Mailer mailer = context.getBean(Mailer.class);
			mailer.failFirst(2);
			String caller = Thread.currentThread().getName();
			mailer.send("hello");
			assertThat(mailer.done().await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(mailer.threads()).hasSize(3).allSatisfy((thread) -> assertThat(thread).isNotEqualTo(caller));
			assertThat(mailer.threads()).containsOnly(mailer.threads().get(0));
			// The meters are recorded just after the method returns, on the executor's thread: read the outcome there.
			assertThat(context.getBean(EndRecorder.class).next())
				.isEqualTo(Outcome.SUCCESS_AFTER_RETRY);
		});
	}

	@Test
	void anAsyncFutureMethodIsRetriedAndItsFutureHasTheRealResult() {
		this.runner.run((context) -> {
			Mailer mailer = context.getBean(Mailer.class);
			mailer.failFirst(2);
			assertThat(mailer.sendForReceipt("hello").get(10, TimeUnit.SECONDS)).isEqualTo("sent hello");
			assertThat(mailer.threads()).hasSize(3);
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class AsyncConfiguration {

	}

	static class Mailer {

		private final List<String> threads = new CopyOnWriteArrayList<>();

		private final CountDownLatch done = new CountDownLatch(1);

		private final AtomicInteger failures = new AtomicInteger();

		List<String> threads() {
			return this.threads;
		}

		CountDownLatch done() {
			return this.done;
		}

		void failFirst(int count) {
			this.failures.set(count);
		}

		@Async
		@Backoff
		public void send(String message) throws IOException {
			attempt();
			this.done.countDown();
		}

		@Async
		@Backoff
		public CompletableFuture<String> sendForReceipt(String message) throws IOException {
			attempt();
			return CompletableFuture.completedFuture("sent " + message);
		}

		private void attempt() throws IOException {
			this.threads.add(Thread.currentThread().getName());
			if (this.failures.getAndDecrement() > 0) {
				throw new IOException("mail server busy");
			}
		}

	}

}
