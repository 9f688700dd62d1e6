package dev.backoff.sample;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.backoff.sample.quotes.Quote;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.micrometer.tracing.test.autoconfigure.AutoConfigureTracing;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's traces, through Spring Boot's real tracing (Micrometer Tracing's OpenTelemetry
 * bridge, the OpenTelemetry SDK), exported in memory: a quote request whose downstream fails
 * twice is one {@code backoff.call} span with three {@code backoff.attempt} spans under it,
 * all under the request's HTTP server span, and each attempt's HTTP client call under its
 * attempt.
 */
@SampleAppTest
@AutoConfigureTracing
@Import(TracingTests.InMemoryExport.class)
// A context of its own (tracing exported), beside the other tests' in the same JVM: its own database.
@TestPropertySource(properties = { "spring.datasource.url=jdbc:h2:mem:backoff-sample-tracing;DB_CLOSE_DELAY=-1",
		"management.tracing.sampling.probability=1.0" })
class TracingTests {

	@LocalServerPort
	private int port;

	@Autowired
	private InMemorySpanExporter spans;

	@Autowired
	private SdkTracerProvider tracerProvider;

	private SampleHttp http;

	@BeforeEach
	void resetDownstream() {
		this.http = new SampleHttp(this.port);
		assertThat(this.http.delete("/downstream/stats").getStatusCode()).isEqualTo(HttpStatus.NO_CONTENT);
	}

	@Test
	void aQuoteRetriedTwiceIsOneCallSpanWithThreeAttemptSpansUnderTheServerSpan() {
		assertThat(this.http.post("/downstream/faults?failNext=2", String.class).getStatusCode())
			.isEqualTo(HttpStatus.OK);
		flush();
		this.spans.reset();
		ResponseEntity<Quote> response = this.http.get("/quotes/ACME", Quote.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		flush();
		List<SpanData> all = this.spans.getFinishedSpanItems();
		SpanData server = single(all.stream()
			.filter((span) -> span.getKind() == SpanKind.SERVER && "/quotes/{symbol}".equals(attribute(span, "uri")))
			.toList());
		List<SpanData> trace = all.stream().filter((span) -> span.getTraceId().equals(server.getTraceId())).toList();

		SpanData call = single(named(trace, "backoff.call"));
		assertThat(call.getParentSpanId()).isEqualTo(server.getSpanId());
		assertThat(attribute(call, "backoff.policy")).isEqualTo("downstream");
		assertThat(attribute(call, "backoff.method")).isEqualTo("QuoteClient.fetch");
		assertThat(attribute(call, "backoff.outcome")).isEqualTo("success_after_retry");

		List<SpanData> attempts = named(trace, "backoff.attempt").stream()
			.sorted(Comparator.comparing((SpanData span) -> attribute(span, "backoff.attempt")))
			.toList();
		assertThat(attempts).hasSize(3)
			.allSatisfy((attempt) -> assertThat(attempt.getParentSpanId()).isEqualTo(call.getSpanId()));
		assertThat(attempts).extracting((attempt) -> attribute(attempt, "backoff.attempt"))
			.containsExactly("1", "2", "3");
		assertThat(attempts).extracting((attempt) -> attribute(attempt, "backoff.attempt.outcome"))
			.containsExactly("retried", "retried", "success");
		assertThat(attempts).extracting((attempt) -> attribute(attempt, "exception"))
			.containsExactly("ServiceUnavailable", "ServiceUnavailable", "none");
		// Full jitter draws each wait from [0, v(n)]: v(1) = 100ms, v(2) = 200ms. A draw under a
		// millisecond is written in microseconds ("790us"), so the value is parsed, not its unit checked.
		assertThat(attempts.subList(0, 2)).extracting((attempt) -> DurationStyle.SIMPLE.parse(attribute(attempt, "backoff.delay")))
			.satisfiesExactly((first) -> assertThat(first).isBetween(Duration.ZERO, Duration.ofMillis(100)),
					(second) -> assertThat(second).isBetween(Duration.ZERO, Duration.ofMillis(200)));
		assertThat(attribute(attempts.get(2), "backoff.delay")).isNull();
		// One after another, inside the call: the waits are the gaps between them.
		for (int i = 1; i < attempts.size(); i++) {
			assertThat(attempts.get(i).getStartEpochNanos()).isGreaterThanOrEqualTo(attempts.get(i - 1).getEndEpochNanos());
		}
		assertThat(attempts.get(0).getStartEpochNanos()).isGreaterThanOrEqualTo(call.getStartEpochNanos());
		assertThat(attempts.get(2).getEndEpochNanos()).isLessThanOrEqualTo(call.getEndEpochNanos());

		// What an attempt does is traced under it: each attempt's request to the downstream.
		for (SpanData attempt : attempts) {
			assertThat(trace).filteredOn((span) -> span.getKind() == SpanKind.CLIENT
					&& span.getParentSpanId().equals(attempt.getSpanId()))
				.hasSize(1);
		}
	}

	/**
	 * A quote that gives up (the downstream fails every attempt) is a failed {@code backoff.call}
	 * span that records the failure its caller got, as Spring's own spans do; its attempts say
	 * what each failed with.
	 */
	@Test
	void aQuoteThatGivesUpIsAFailedCallSpan() {
		assertThat(this.http.post("/downstream/faults?failNext=4", String.class).getStatusCode())
			.isEqualTo(HttpStatus.OK);
		flush();
		this.spans.reset();
		assertThat(this.http.get("/quotes/ACME", String.class).getStatusCode()).isEqualTo(HttpStatus.BAD_GATEWAY);
		flush();
		SpanData call = single(named(this.spans.getFinishedSpanItems(), "backoff.call"));
		assertThat(attribute(call, "backoff.outcome")).isEqualTo("exhausted");
		assertThat(call.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
		assertThat(call.getEvents()).anySatisfy((event) -> assertThat(event.getName()).isEqualTo("exception"));
		assertThat(named(this.spans.getFinishedSpanItems(), "backoff.attempt")).hasSize(4)
			.allSatisfy((attempt) -> assertThat(attribute(attempt, "exception")).isEqualTo("ServiceUnavailable"));
	}

	/**
	 * Spring Boot's meter observation handler makes timers of the observations, named after
	 * them, beside the {@code backoff.*} meters: a Prometheus registry, which refuses two
	 * meters of one name with different labels, scrapes both.
	 */
	@Test
	void prometheusScrapesTheObservationTimersBesideTheBackoffMeters() {
		assertThat(this.http.post("/downstream/faults?failNext=2", String.class).getStatusCode())
			.isEqualTo(HttpStatus.OK);
		double timedBefore = this.http.prometheusSum("backoff_call_seconds_count", "backoff_method=\"QuoteClient.fetch\"");
		double countedBefore = this.http.prometheusSum("backoff_calls_total", "method=\"QuoteClient.fetch\"");
		assertThat(this.http.get("/quotes/ACME", Quote.class).getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(this.http.prometheusSum("backoff_call_seconds_count", "backoff_method=\"QuoteClient.fetch\"")
				- timedBefore).isEqualTo(1);
		assertThat(this.http.prometheusSum("backoff_calls_total", "method=\"QuoteClient.fetch\"") - countedBefore)
			.isEqualTo(1);
		assertThat(this.http.prometheusSum("backoff_attempt_seconds_count", "backoff_attempt_outcome=\"retried\""))
			.isGreaterThanOrEqualTo(2);
	}

	private void flush() {
		assertThat(this.tracerProvider.forceFlush().join(10, TimeUnit.SECONDS).isSuccess()).isTrue();
	}

	private static List<SpanData> named(List<SpanData> spans, String name) {
		return spans.stream().filter((span) -> span.getName().equals(name)).toList();
	}

	private static SpanData single(List<SpanData> spans) {
		assertThat(spans).hasSize(1);
		return spans.get(0);
	}

	private static String attribute(SpanData span, String key) {
		return span.getAttributes().get(AttributeKey.stringKey(key));
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class InMemoryExport {

		@Bean
		InMemorySpanExporter inMemorySpanExporter() {
			return InMemorySpanExporter.create();
		}

	}

}
