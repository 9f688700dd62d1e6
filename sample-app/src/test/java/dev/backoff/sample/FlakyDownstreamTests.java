package dev.backoff.sample;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import dev.backoff.Outcome;
import dev.backoff.sample.downstream.DownstreamFaults.StatsView;
import dev.backoff.sample.quotes.Quote;
import dev.backoff.test.BackoffRecorder;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static dev.backoff.test.BackoffAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario 1: {@code GET /quotes/{symbol}} calls the downstream over loopback HTTP, retrying
 * 5xx, 429 and I/O errors under the {@code downstream} policy (4 attempts) and nothing else.
 * Every count is checked against what the downstream itself received.
 */
@SampleAppTest
class FlakyDownstreamTests {

	private static final String METHOD = "method:QuoteClient.fetch";

	@LocalServerPort
	private int port;

	private SampleHttp http;

	@Autowired
	private BackoffRecorder recorder;

	@BeforeEach
	void resetDownstream() {
		this.http = new SampleHttp(this.port);
		assertThat(this.http.delete("/downstream/stats").getStatusCode()).isEqualTo(HttpStatus.NO_CONTENT);
	}

	@Test
	void retriesServiceUnavailableUntilTheQuoteArrives() {
		double retriesBefore = retries();
		setFaults("failNext=2");
		ResponseEntity<Quote> response = this.http.get("/quotes/ACME", Quote.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(response.getBody().symbol()).isEqualTo("ACME");
		StatsView stats = stats();
		assertThat(stats.requests()).isEqualTo(3);
		assertThat(stats.unavailable()).isEqualTo(2);
		assertThat(stats.ok()).isEqualTo(1);
		assertThat(retries() - retriesBefore).isEqualTo(2);
	}

	@Test
	void retriesThrottlingAndADroppedConnection() {
		double throttledBefore = this.http.metricCount("backoff.retries", METHOD, "exception:TooManyRequests");
		double droppedBefore = this.http.metricCount("backoff.retries", METHOD, "exception:RestClientException");
		// Retry-After: 0, so the retry follows the policy's own millisecond delay.
		setFaults("throttleNext=1&retryAfter=0&disconnectNext=1");
		ResponseEntity<Quote> response = this.http.get("/quotes/GLOBEX", Quote.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		StatsView stats = stats();
		assertThat(stats.requests()).isEqualTo(3);
		assertThat(stats.disconnected()).isEqualTo(1);
		assertThat(stats.throttled()).isEqualTo(1);
		assertThat(this.http.metricCount("backoff.retries", METHOD, "exception:TooManyRequests") - throttledBefore)
			.isEqualTo(1);
		// The cut-off body surfaces as a RestClientException caused by an IOException: retried by
		// the starter's HTTP classification, which looks along the cause chain.
		assertThat(this.http.metricCount("backoff.retries", METHOD, "exception:RestClientException") - droppedBefore)
			.isEqualTo(1);
	}

	@Test
	void downstreamThrottlesWithRetryAfter() {
		setFaults("throttleNext=1&retryAfter=7");
		ResponseEntity<String> response = this.http.get("/downstream/quotes/ACME", String.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(response.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("7");
	}

	@Test
	void waitsTheRetryAfterOfA429() {
		setFaults("throttleNext=1&retryAfter=1");
		ResponseEntity<Quote> response = this.http.get("/quotes/ACME", Quote.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(stats().requests()).isEqualTo(2);
		// The policy's own first delay is at most 100ms: the wait of one second is the server's,
		// computed and metered though @InstantBackoff does not wait it.
		assertThat(this.recorder).method("QuoteClient.fetch")
			.lastCall()
			.endedWith(Outcome.SUCCESS_AFTER_RETRY)
			.waited(Duration.ofSeconds(1));
		assertThat(this.http.metric("MAX", "backoff.delay", METHOD)).isGreaterThanOrEqualTo(1.0);
	}

	@Test
	void failsAtOnceWhenRetryAfterIsBeyondMaxRetryAfter() {
		double timedOutBefore = calls("timed_out");
		setFaults("throttleNext=1&retryAfter=10");
		ResponseEntity<JsonNode> response = this.http.get("/quotes/ACME", JsonNode.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.BAD_GATEWAY);
		assertThat(response.getBody().get("downstreamStatus").asInt()).isEqualTo(429);
		assertThat(stats().requests()).isEqualTo(1);
		assertThat(calls("timed_out") - timedOutBefore).isEqualTo(1);
	}

	@Test
	void doesNotRetryNotFound() {
		double retriesBefore = retries();
		double notRetryableBefore = calls("not_retryable");
		ResponseEntity<JsonNode> response = this.http.get("/quotes/NOPE", JsonNode.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
		StatsView stats = stats();
		assertThat(stats.requests()).isEqualTo(1);
		assertThat(stats.notFound()).isEqualTo(1);
		assertThat(retries() - retriesBefore).isZero();
		assertThat(calls("not_retryable") - notRetryableBefore).isEqualTo(1);
	}

	@Test
	void doesNotRetryBadRequest() {
		double retriesBefore = retries();
		ResponseEntity<JsonNode> response = this.http.get("/quotes/acme", JsonNode.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.BAD_GATEWAY);
		assertThat(response.getBody().get("downstreamStatus").asInt()).isEqualTo(400);
		assertThat(stats().requests()).isEqualTo(1);
		assertThat(retries() - retriesBefore).isZero();
	}

	@Test
	void answersBadGatewayWhenFailuresOutlastThePolicy() {
		double retriesBefore = retries();
		double exhaustedBefore = calls("exhausted");
		setFaults("failNext=10");
		ResponseEntity<JsonNode> response = this.http.get("/quotes/INITECH", JsonNode.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.BAD_GATEWAY);
		assertThat(response.getBody().get("downstreamStatus").asInt()).isEqualTo(503);
		assertThat(stats().requests()).as("max-attempts of the downstream policy").isEqualTo(4);
		assertThat(retries() - retriesBefore).isEqualTo(3);
		assertThat(calls("exhausted") - exhaustedBefore).isEqualTo(1);
	}

	@Test
	void retryMetricsAndPrometheusAgreeWithWhatTheDownstreamSaw() {
		double retriesBefore = retries();
		double scrapedBefore = scrapedRetries();
		setFaults("failureRate=0.3");
		List<String> symbols = List.of("ACME", "GLOBEX", "INITECH");
		int calls = 30;
		for (int i = 0; i < calls; i++) {
			ResponseEntity<Quote> response = this.http.get("/quotes/" + symbols.get(i % 3), Quote.class);
			assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		}
		StatsView stats = stats();
		assertThat(stats.unavailable()).as("the seeded failure rate failed some requests").isPositive();
		assertThat(stats.ok()).isEqualTo(calls);
		// Every call succeeded, so each failed request was followed by exactly one retry.
		assertThat(stats.requests() - calls).isEqualTo(stats.unavailable());
		assertThat(retries() - retriesBefore).isEqualTo(stats.unavailable());
		assertThat(scrapedRetries() - scrapedBefore).isEqualTo(stats.unavailable());
	}

	private void setFaults(String query) {
		assertThat(this.http.post("/downstream/faults?" + query, String.class).getStatusCode()).isEqualTo(HttpStatus.OK);
	}

	private StatsView stats() {
		return this.http.get("/downstream/stats", StatsView.class).getBody();
	}

	private double retries() {
		return this.http.metricCount("backoff.retries", METHOD);
	}

	private double calls(String outcome) {
		return this.http.metricCount("backoff.calls", METHOD, "outcome:" + outcome);
	}

	private double scrapedRetries() {
		return this.http.prometheusSum("backoff_retries_total", "method=\"QuoteClient.fetch\"");
	}

}
