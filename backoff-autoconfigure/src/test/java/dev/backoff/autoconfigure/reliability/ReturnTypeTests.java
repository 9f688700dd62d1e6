package dev.backoff.autoconfigure.reliability;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.spring.config.BackoffConfigurationException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Return types that cannot be retried correctly are refused: at start-up when the declared
 * type says so, at the call when only the returned object does.
 */
class ReturnTypeTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class))
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

}
