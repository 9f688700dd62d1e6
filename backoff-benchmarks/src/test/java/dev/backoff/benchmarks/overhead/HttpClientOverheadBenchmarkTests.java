package dev.backoff.benchmarks.overhead;

import dev.backoff.spring.metrics.BackoffMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Proves the harness of {@link HttpClientOverheadBenchmark}: every client answers, and only
 * the Backoff one runs its requests as calls of the policy.
 */
class HttpClientOverheadBenchmarkTests {

	@ParameterizedTest
	@ValueSource(strings = { "none", "actuator", "tracing" })
	void everyClientAnswersAndOnlyBackoffsCountsItsCalls(String application) {
		HttpClientOverheadBenchmark benchmark = new HttpClientOverheadBenchmark();
		HttpClientOverheadBenchmark.Clients clients = new HttpClientOverheadBenchmark.Clients();
		clients.application = application;
		clients.start();
		try {
			assertThat(benchmark.get_1_plain(clients)).isEqualTo("ok");
			assertThat(benchmark.get_2_noOpInterceptor(clients)).isEqualTo("ok");
			MeterRegistry registry = clients.context.getBean(MeterRegistry.class);
			assertThat(registry.find(BackoffMetrics.CALLS).counters()).isEmpty();
			assertThat(benchmark.get_3_backoff(clients)).isEqualTo("ok");
			assertThat(registry.get(BackoffMetrics.CALLS).tag("method", "downstream GET").tag("outcome", "success")
				.counter().count()).isEqualTo(1);
			// Observed only where a tracer is.
			assertThat(registry.find("backoff.call").timers()).hasSize(application.equals("tracing") ? 1 : 0);
			// The clients are observed as Spring Boot's builder observes them, where there is a registry.
			assertThat(registry.find("http.client.requests").timers()).hasSize(application.equals("none") ? 0 : 1);
		}
		finally {
			clients.stop();
		}
	}

}
