package dev.backoff.autoconfigure.metrics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.backoff.Backoff;
import dev.backoff.RecordingSleeper;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How many series the {@code backoff.delay} histogram adds to a Prometheus scrape per method,
 * with Spring Boot's {@code management.metrics.distribution.*} settings, against what
 * docs/observability.md says: its default buckets, and the ways the page gives to bound them.
 */
class DelayHistogramSeriesTests {

	private static final String PAGE = "../docs/observability.md";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
				PrometheusMetricsExportAutoConfiguration.class, BackoffAutoConfiguration.class,
				BackoffMetricsAutoConfiguration.class))
		.withBean(RecordingSleeper.class)
		.withBean(Quotes.class)
		.withPropertyValues("backoff.policies.quotes.max-attempts=2");

	@Test
	void theDefaultHistogramAddsTheSeriesTheDocsSay() throws IOException {
		assertThat(buckets("management.metrics.distribution.percentiles-histogram.backoff.delay=true"))
			.isEqualTo(documented("adds (\\d+) series per method"));
	}

	@Test
	void boundingItsRangeLeavesTheSeriesTheDocsSay() throws IOException {
		assertThat(buckets("management.metrics.distribution.percentiles-histogram.backoff.delay=true",
				"management.metrics.distribution.minimum-expected-value.backoff.delay=10ms",
				"management.metrics.distribution.maximum-expected-value.backoff.delay=20s"))
			.isEqualTo(documented("maximum-expected-value.backoff.delay=20s` leave (\\d+)"));
	}

	@Test
	void serviceLevelBucketsAloneAreTheSeriesTheDocsSay() throws IOException {
		assertThat(buckets("management.metrics.distribution.slo.backoff.delay=50ms,100ms,250ms,500ms,1s,2s,5s,10s,20s"))
			.isEqualTo(documented("slo.backoff.delay=50ms,100ms,250ms,500ms,1s,2s,5s,10s,20s` gives (\\d+)"));
	}

	@Test
	void withoutAHistogramTheTimerHasNoBuckets() {
		assertThat(buckets()).isZero();
	}

	/** The method's {@code backoff_delay_seconds_bucket} series after a call that retried once. */
	private int buckets(String... properties) {
		int[] count = new int[1];
		this.runner.withPropertyValues(properties).run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			assertThat(quotes.fetch()).isEqualTo("ok");
			String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
			count[0] = (int) scrape.lines()
				.filter((line) -> line.startsWith("backoff_delay_seconds_bucket{") && line.contains("method=\"Quotes.fetch\""))
				.count();
			assertThat(scrape).contains("backoff_delay_seconds_count{");
		});
		return count[0];
	}

	private static int documented(String pattern) throws IOException {
		String page = Files.readString(Path.of(PAGE), StandardCharsets.UTF_8).replaceAll("\\s+", " ");
		Matcher matcher = Pattern.compile(pattern).matcher(page);
		assertThat(matcher.find()).as("'%s' in %s", pattern, PAGE).isTrue();
		return Integer.parseInt(matcher.group(1));
	}

	static class Quotes {

		private final AtomicInteger calls = new AtomicInteger();

		@Backoff("quotes")
		public String fetch() {
			if (this.calls.incrementAndGet() == 1) {
				throw new UncheckedIOException(new IOException("down"));
			}
			return "ok";
		}

	}

}
