package dev.backoff.spring.operation;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.Outcome;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.EndRecorder;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Closing the context ends the {@code Mono} and {@code Flux} calls waiting for a retry, at
 * once, with their last failure, as it ends those of future-returning methods; the closed
 * bean is never invoked again.
 */
class ReactorCloseTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(Hourly.class)
		.withPropertyValues("backoff.defaults.base-delay=1h", "backoff.defaults.max-delay=1h",
				"backoff.defaults.jitter=none", "backoff.defaults.max-attempts=3");

	@Test
	void aWaitingMonoEndsAtCloseWithItsFailureAndNoFurtherAttempt() throws Exception {
		CompletableFuture<String> result = new CompletableFuture<>();
		AtomicInteger calls = new AtomicInteger();
		EndRecorder ends = new EndRecorder();
		this.runner.withBean(EndRecorder.class, () -> ends).run((context) -> {
			Hourly hourly = context.getBean(Hourly.class);
			hourly.mono(calls).subscribe(result::complete, result::completeExceptionally);
			assertThat(calls.get()).isEqualTo(1);
			assertThat(result).isNotDone();
		});
		Throwable failure = catchThrowable(() -> result.get(10, TimeUnit.SECONDS));
		assertThat(failure).cause().isInstanceOf(IOException.class).hasMessage("attempt 1");
		assertThat(failure.getCause().getSuppressed()).hasAtLeastOneElementOfType(RejectedExecutionException.class);
		assertThat(ends.next()).isEqualTo(Outcome.INTERRUPTED);
		assertThat(calls.get()).isEqualTo(1);
	}

	@Test
	void aWaitingFluxEndsAtCloseWithItsFailureAndNoFurtherAttempt() throws Exception {
		CompletableFuture<Void> result = new CompletableFuture<>();
		AtomicInteger calls = new AtomicInteger();
		this.runner.run((context) -> {
			context.getBean(Hourly.class).flux(calls).subscribe(null, result::completeExceptionally, () -> result.complete(null));
			assertThat(result).isNotDone();
		});
		Throwable failure = catchThrowable(() -> result.get(10, TimeUnit.SECONDS));
		assertThat(failure).cause().isInstanceOf(IOException.class);
		assertThat(calls.get()).isEqualTo(1);
	}

	static class Hourly {

		@Backoff
		public Mono<String> mono(AtomicInteger calls) {
			return Mono.error(() -> new IOException("attempt " + calls.incrementAndGet()));
		}

		@Backoff
		public Flux<String> flux(AtomicInteger calls) {
			return Flux.error(() -> new IOException("attempt " + calls.incrementAndGet()));
		}

	}

}
