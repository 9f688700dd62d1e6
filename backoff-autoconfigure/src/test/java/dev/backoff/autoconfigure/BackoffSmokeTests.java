package dev.backoff.autoconfigure;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.Sleeper;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class BackoffSmokeTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class))
		.withUserConfiguration(Config.class);

	@Test
	void retriesUntilSuccess() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			Flaky flaky = context.getBean(Flaky.class);
			flaky.failFirst(2);
			assertThat(flaky.call()).isEqualTo("ok");
			assertThat(flaky.calls()).isEqualTo(3);
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).hasSize(2);
		});
	}

	@Test
	void rethrowsCheckedException() {
		this.runner.run((context) -> {
			Flaky flaky = context.getBean(Flaky.class);
			flaky.failFirst(10);
			assertThatExceptionOfType(IOException.class).isThrownBy(flaky::call);
			assertThat(flaky.calls()).isEqualTo(3);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		RecordingSleeper sleeper() {
			return new RecordingSleeper();
		}

		@Bean
		Flaky flaky() {
			return new Flaky();
		}

	}

	static class Flaky {

		final AtomicInteger calls = new AtomicInteger();

		volatile int failures;

		public void failFirst(int failures) {
			this.failures = failures;
		}

		public int calls() {
			return this.calls.get();
		}

		@Backoff
		public String call() throws IOException {
			if (this.calls.incrementAndGet() <= this.failures) {
				throw new IOException("fail " + this.calls.get());
			}
			return "ok";
		}

	}

}
