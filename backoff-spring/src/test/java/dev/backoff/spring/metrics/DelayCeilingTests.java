package dev.backoff.spring.metrics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.backoff.Backoff;
import dev.backoff.RecordingSleeper;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.operation.BackoffOperationSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code backoff.delay.ceiling}: each method's longest possible wait, from its own effective
 * schedule, which the alert BackoffWaitsNearCeiling compares its waits with. The policy's
 * {@code max-delay} is the wrong yardstick for a method whose annotation overrides it, for a
 * throttling schedule, and for a {@code max-attempts} whose ceilings never reach it.
 */
class DelayCeilingTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class)
		.withBean(RecordingSleeper.class)
		.withBean(Remote.class)
		.withPropertyValues("backoff.policies.remote.max-attempts=4", "backoff.policies.remote.base-delay=100ms",
				"backoff.policies.remote.max-delay=2s", "backoff.policies.remote.jitter=full");

	@Test
	void isTheLastRetrysCeilingOfTheMethodsOwnSchedule() {
		this.runner.run((context) -> {
			Remote remote = context.getBean(Remote.class);
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(remote::fetch);
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(remote::fetchSlowly);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			// 4 attempts: the third retry's ceiling, 100ms × 2², far below the policy's max-delay.
			assertThat(ceiling(registry, "Remote.fetch")).isEqualTo(400);
			assertThat(registry.get(BackoffPolicyMetrics.MAX_DELAY).tag("policy", "remote").timeGauge()
				.value(TimeUnit.MILLISECONDS)).isEqualTo(2000);
			// The annotation's base-delay 1s and max-delay 5s: min(5s, 1s × 2²).
			assertThat(ceiling(registry, "Remote.fetchSlowly")).isEqualTo(4000);
		});
	}

	@Test
	void isTheThrottlingSchedulesWhenThatIsLonger() {
		this.runner.withPropertyValues("backoff.policies.remote.throttle-base-delay=1s",
				"backoff.policies.remote.throttle-max-delay=6s").run((context) -> {
					assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(context.getBean(Remote.class)::fetch);
					// min(6s, 1s × 2²), beside 400ms for the other failures.
					assertThat(ceiling(context.getBean(MeterRegistry.class), "Remote.fetch")).isEqualTo(4000);
				});
	}

	@Test
	void followsALiveChange() {
		this.runner.run((context) -> {
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(context.getBean(Remote.class)::fetch);
			context.getBean(BackoffOperationSource.class).change("remote", Map.of("maxAttempts", "6"));
			// min(2s, 100ms × 2⁴).
			assertThat(ceiling(context.getBean(MeterRegistry.class), "Remote.fetch")).isEqualTo(1600);
		});
	}

	@Test
	void comesWithTheMethodsFirstWait() {
		this.runner.withPropertyValues("backoff.policies.remote.max-attempts=1").run((context) -> {
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(context.getBean(Remote.class)::fetch);
			assertThat(context.getBean(MeterRegistry.class).find(DelayCeiling.NAME).meters()).isEmpty();
		});
	}

	private static double ceiling(MeterRegistry registry, String method) {
		TimeGauge gauge = registry.get(DelayCeiling.NAME).tag("policy", "remote").tag("method", method).timeGauge();
		return gauge.value(TimeUnit.MILLISECONDS);
	}

	static class Remote {

		@Backoff("remote")
		String fetch() {
			throw new UncheckedIOException(new IOException("down"));
		}

		@Backoff(value = "remote", baseDelay = "1s", maxDelay = "5s")
		String fetchSlowly() {
			throw new UncheckedIOException(new IOException("down"));
		}

	}

}
