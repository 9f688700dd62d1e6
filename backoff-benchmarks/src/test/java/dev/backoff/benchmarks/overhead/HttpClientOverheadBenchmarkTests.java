package dev.backoff.benchmarks.overhead;

import dev.backoff.autoconfigure.metrics.BackoffMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Proves the harness of {@link HttpClientOverheadBenchmark}: every client answers, and only
 * the Backoff one runs its requests as calls of the policy.
 */
class HttpClientOverheadBenchmarkTests {

	@Test
	void everyClientAnswersAndOnlyBackoffsCountsItsCalls() {
		HttpClientOverheadBenchmark benchmark = new HttpClientOverheadBenchmark();
		HttpClientOverheadBenchmark.Clients clients = new HttpClientOverheadBenchmark.Clients();
		clients.start();
		try {
			assertThat(benchmark.get_1_plain(clients)).isEqualTo("ok");
			assertThat(benchmark.get_2_noOpInterceptor(clients)).isEqualTo("ok");
			MeterRegistry registry = clients.context.getBean(MeterRegistry.class);
			assertThat(registry.find(BackoffMetrics.CALLS).counters()).isEmpty();
			assertThat(benchmark.get_3_backoff(clients)).isEqualTo("ok");
			assertThat(registry.get(BackoffMetrics.CALLS).tag("method", "downstream GET").tag("outcome", "success")
				.counter().count()).isEqualTo(1);
		}
		finally {
			clients.stop();
		}
	}

}
