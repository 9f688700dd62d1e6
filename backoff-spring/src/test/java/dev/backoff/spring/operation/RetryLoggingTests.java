package dev.backoff.spring.operation;

import java.io.IOException;

import ch.qos.logback.classic.Level;
import dev.backoff.Backoff;
import dev.backoff.Sleeper;
import dev.backoff.spring.DebugLogging;
import dev.backoff.spring.EnabledBackoff;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Retry logging at DEBUG: what it says, and that it never shows an argument or a result.
 */
@ExtendWith({ OutputCaptureExtension.class, DebugLogging.class })
class RetryLoggingTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withUserConfiguration(SecretsConfiguration.class)
		.withPropertyValues("backoff.policies.vault.max-attempts=3", "backoff.policies.vault.jitter=none",
				"backoff.policies.vault.base-delay=250ms");

	@Test
	void logsEveryRetryWithPolicyMethodAttemptDelayAndException(CapturedOutput output) {
		this.runner.run((context) -> {
			Vault vault = context.getBean(Vault.class);
			vault.failFirst(1);
			vault.open("hunter2");
			assertThat(output).contains("@Backoff(vault) Vault.open: attempt 1 of 3 failed "
					+ "(java.io.IOException: vault sealed); retrying in 250ms");
		});
	}

	@Test
	void logsTheFinalFailure(CapturedOutput output) {
		this.runner.run((context) -> {
			Vault vault = context.getBean(Vault.class);
			vault.failFirst(5);
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> vault.open("hunter2"));
			assertThat(output).contains("@Backoff(vault) Vault.open: gave up after 3 of 3 attempts, outcome exhausted");
		});
	}

	@Test
	void neverLogsAnArgumentOrAResult(CapturedOutput output) {
		this.runner.run((context) -> {
			Vault vault = context.getBean(Vault.class);
			vault.failFirst(1);
			assertThat(vault.open("hunter2")).isEqualTo("opened-with-secret-result");
			vault.failFirst(5);
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> vault.open("hunter2"));
			assertThat(output).contains("retrying in").doesNotContain("hunter2").doesNotContain("secret-result");
		});
	}

	@Test
	void logsNothingAboveDebug(CapturedOutput output) {
		DebugLogging.logger().setLevel(Level.INFO);
		this.runner.run((context) -> {
			Vault vault = context.getBean(Vault.class);
			vault.failFirst(1);
			vault.open("hunter2");
			assertThat(output).doesNotContain("retrying in");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class SecretsConfiguration {

		@Bean
		Sleeper noSleep() {
			return (delay) -> {
			};
		}

		@Bean
		Vault vault() {
			return new Vault();
		}

	}

	static class Vault {

		private int failures;

		public void failFirst(int failures) {
			this.failures = failures;
		}

		@Backoff("vault")
		public String open(String password) throws IOException {
			if (this.failures-- > 0) {
				throw new IOException("vault sealed");
			}
			return "opened-with-secret-result";
		}

	}

}
