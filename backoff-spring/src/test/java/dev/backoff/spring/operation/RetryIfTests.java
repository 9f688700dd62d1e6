package dev.backoff.spring.operation;

import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.spring.CountingSleeper;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.config.BackoffConfigurationException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code retryIf} that names a missing type stops start-up; one that cannot be evaluated on
 * a result, or gives no boolean, leaves the successful result to the caller, with a warning.
 */
@ExtendWith(OutputCaptureExtension.class)
class RetryIfTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(CountingSleeper.class);

	@Test
	void aMissingTypeStopsStartUp() {
		this.runner.withBean(MissingType.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).cause()
				.isInstanceOf(BackoffConfigurationException.class)
				.hasMessageContaining("@Backoff(retryIf) on MissingType.status")
				.hasMessageContaining("names the type com.example.Nope, which is not on the class path");
		});
	}

	@Test
	void anExistingTypeIsAccepted() {
		this.runner.withBean(ExistingType.class).run((context) -> {
			ExistingType polled = context.getBean(ExistingType.class);
			assertThat(polled.status()).isEqualTo(Thread.State.RUNNABLE);
			assertThat(polled.calls()).isEqualTo(2);
		});
	}

	@Test
	void aNonBooleanValueReturnsTheResultWithAWarning(CapturedOutput output) {
		this.runner.withBean(Unusable.class).run((context) -> {
			Unusable unusable = context.getBean(Unusable.class);
			assertThat(unusable.word()).isEqualTo("maybe");
			assertThat(unusable.number()).isEqualTo(7);
			assertThat(unusable.calls()).isEqualTo(2);
			assertThat(output).contains("retryIf '#result' (@Backoff(retryIf) on Unusable.word) gave a String rather "
					+ "than true or false on a String result; the result is returned without a retry");
			assertThat(output).contains("gave a Integer rather than true or false");
		});
	}

	@Test
	void aNullResultReturnsNullWithAWarning(CapturedOutput output) {
		this.runner.withBean(Unusable.class).run((context) -> {
			Unusable unusable = context.getBean(Unusable.class);
			assertThat(unusable.nothing()).isNull();
			assertThat(unusable.nothing()).isNull();
			assertThat(unusable.calls()).isEqualTo(2);
			assertThat(output).containsOnlyOnce("on a null result; the result is returned without a retry");
		});
	}

	static class MissingType {

		@Backoff(retryIf = "#result.state == T(com.example.Nope).READY")
		public Thread.State status() {
			return Thread.State.NEW;
		}

	}

	static class ExistingType {

		private final AtomicInteger calls = new AtomicInteger();

		int calls() {
			return this.calls.get();
		}

		@Backoff(retryIf = "#result == T(java.lang.Thread.State).NEW")
		public Thread.State status() {
			return (this.calls.incrementAndGet() == 1) ? Thread.State.NEW : Thread.State.RUNNABLE;
		}

	}

	static class Unusable {

		private final AtomicInteger calls = new AtomicInteger();

		int calls() {
			return this.calls.get();
		}

		@Backoff(retryIf = "#result")
		public String word() {
			this.calls.incrementAndGet();
			return "maybe";
		}

		@Backoff(retryIf = "#result")
		public Integer number() {
			this.calls.incrementAndGet();
			return 7;
		}

		@Backoff(retryIf = "#result.status == 'PENDING'")
		public @Nullable Object nothing() {
			this.calls.incrementAndGet();
			return null;
		}

	}

}
