package dev.backoff.spring.operation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.spring.CountingSleeper;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.config.BackoffConfigurationException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Return types that cannot be retried correctly are refused: at start-up when the declared
 * type says so, at the call when only the returned object does.
 */
class ReturnTypeTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(CountingSleeper.class);

	@Test
	void aFlowPublisherStopsStartUp() {
		this.runner.withBean(FlowPublisher.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(BackoffConfigurationException.class)
				.hasMessageContaining("return type on FlowPublisher.ticks")
				.hasMessageContaining("cannot be retried");
		});
	}

	@Test
	void aFutureReturnedFromAMethodDeclaredObjectIsRefusedWithAnExplanation() {
		this.runner.withBean(Untyped.class).run((context) -> {
			Untyped untyped = context.getBean(Untyped.class);
			assertThat(catchThrowable(untyped::failedFuture)).isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("@Backoff method Untyped.failedFuture is declared to return Object")
				.hasMessageContaining("Declare the return type as CompletableFuture");
			assertThat(untyped.calls()).isEqualTo(1);
		});
	}

	@Test
	void aPlainValueFromAMethodDeclaredObjectIsRetriedAsUsual() {
		this.runner.withBean(Untyped.class).run((context) -> {
			Untyped untyped = context.getBean(Untyped.class);
			assertThat(untyped.valueAfterOneFailure()).isEqualTo("value");
			assertThat(untyped.calls()).isEqualTo(2);
		});
	}

	@Test
	void aMonoMethodReturningNullFailsItsAttemptsAsACompletableFutureMethodDoes() {
		this.runner.withBean(Nulls.class).withPropertyValues("backoff.defaults.max-attempts=3").run((context) -> {
			Nulls nulls = context.getBean(Nulls.class);
			Throwable mono = catchThrowable(() -> nulls.mono().block());
			Throwable future = catchThrowable(() -> nulls.future().get(10, TimeUnit.SECONDS));
			assertThat(mono).isInstanceOf(IllegalStateException.class).hasMessageContaining("returned null");
			assertThat(future).cause().isInstanceOf(IllegalStateException.class).hasMessageContaining("returned null");
			assertThat(nulls.monoCalls()).isEqualTo(3);
			assertThat(nulls.futureCalls()).isEqualTo(3);
		});
	}

	static class FlowPublisher {

		@Backoff
		public Flow.Publisher<String> ticks() {
			return new SubmissionPublisher<>();
		}

	}

	static class Untyped {

		private final AtomicInteger calls = new AtomicInteger();

		int calls() {
			return this.calls.get();
		}

		@Backoff
		public Object failedFuture() {
			this.calls.incrementAndGet();
			return CompletableFuture.failedFuture(new IllegalStateException("down"));
		}

		@Backoff
		public Object valueAfterOneFailure() {
			if (this.calls.incrementAndGet() == 1) {
				throw new IllegalStateException("down");
			}
			return "value";
		}

	}

	static class Nulls {

		private final AtomicInteger monoCalls = new AtomicInteger();

		private final AtomicInteger futureCalls = new AtomicInteger();

		int monoCalls() {
			return this.monoCalls.get();
		}

		int futureCalls() {
			return this.futureCalls.get();
		}

		@Backoff
		public @Nullable Mono<String> mono() {
			this.monoCalls.incrementAndGet();
			return null;
		}

		@Backoff
		public @Nullable CompletableFuture<String> future() {
			this.futureCalls.incrementAndGet();
			return null;
		}

	}

}
