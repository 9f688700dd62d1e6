package dev.backoff.spring.operation;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.spring.CountingSleeper;
import dev.backoff.spring.DebugLogging;
import dev.backoff.spring.EnabledBackoff;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * No argument or return value of a call leaks into a log line or a meter, on any return type,
 * with retry logging at DEBUG.
 */
@ExtendWith({ OutputCaptureExtension.class, DebugLogging.class })
class ArgumentPrivacyTests {

	private static final String SECRET_ARGUMENT = "s3cr3t-arg";

	private static final String SECRET_RESULT = "s3cr3t-result";

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
		.withBean(CountingSleeper.class)
		.withBean(Secrets.class);

	@Test
	void neitherArgumentNorResultAppearsInALogLineOrAMeterOnAnyReturnType(CapturedOutput output) {
		this.runner.run((context) -> {
			Secrets secrets = context.getBean(Secrets.class);
			secrets.failFirst(1);
			assertThat(secrets.blocking(SECRET_ARGUMENT)).isEqualTo(SECRET_RESULT);
			secrets.failFirst(5);
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> secrets.blocking(SECRET_ARGUMENT));
			secrets.failFirst(1);
			assertThat(secrets.async(SECRET_ARGUMENT)).succeedsWithin(TIMEOUT).isEqualTo(SECRET_RESULT);
			secrets.failFirst(1);
			StepVerifier.create(secrets.mono(SECRET_ARGUMENT)).expectNext(SECRET_RESULT).expectComplete().verify(TIMEOUT);
			assertThat(output).contains("retrying in")
				.contains("gave up after")
				.doesNotContain(SECRET_ARGUMENT)
				.doesNotContain(SECRET_RESULT);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.getMeters()).extracting(Meter::getId)
				.filteredOn((id) -> id.getName().startsWith("backoff."))
				.isNotEmpty()
				.allSatisfy((id) -> assertThat(id.getTags()).extracting(Tag::getValue)
					.noneMatch((value) -> value.contains(SECRET_ARGUMENT) || value.contains(SECRET_RESULT)));
		});
	}

	static class Secrets {

		private final AtomicInteger failuresLeft = new AtomicInteger();

		void failFirst(int failures) {
			this.failuresLeft.set(failures);
		}

		@Backoff(maxAttempts = "3", baseDelay = "0ms", jitter = Jitter.NONE)
		public String blocking(String secret) throws IOException {
			failIfAsked();
			return SECRET_RESULT;
		}

		@Backoff(maxAttempts = "3", baseDelay = "0ms", jitter = Jitter.NONE)
		public CompletableFuture<String> async(String secret) throws IOException {
			failIfAsked();
			return CompletableFuture.completedFuture(SECRET_RESULT);
		}

		@Backoff(maxAttempts = "3", baseDelay = "0ms", jitter = Jitter.NONE)
		public Mono<String> mono(String secret) {
			return Mono.fromCallable(() -> {
				failIfAsked();
				return SECRET_RESULT;
			});
		}

		private void failIfAsked() throws IOException {
			if (this.failuresLeft.getAndDecrement() > 0) {
				// The message names neither: what a failure says is the application's choice.
				throw new IOException("downstream unavailable");
			}
		}

	}

}
