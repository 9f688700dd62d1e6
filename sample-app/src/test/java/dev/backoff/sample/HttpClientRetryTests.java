package dev.backoff.sample;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import dev.backoff.Outcome;
import dev.backoff.sample.downstream.DownstreamFaults.StatsView;
import dev.backoff.sample.quotes.Quote;
import dev.backoff.test.BackoffRecorder;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static dev.backoff.test.BackoffAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario 1b: {@code GET /http/quotes/{symbol}} goes through {@code QuoteService}, an
 * {@code @HttpExchange} client without {@code @Backoff} whose {@code RestClient} retries each
 * request with Backoff's interceptor, under the {@code quote-service} policy. Counts are checked
 * against what the downstream received.
 */
@SampleAppTest
class HttpClientRetryTests {

	private static final String METHOD = "method:quote-service GET";

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
	void theInterfaceClientRetriesA503AndA429ByItself() {
		double throttledBefore = this.http.metricCount("backoff.retries", METHOD, "exception:TooManyRequests");
		setFaults("failNext=1&throttleNext=1&retryAfter=0");
		ResponseEntity<Quote> response = this.http.get("/http/quotes/ACME", Quote.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(response.getBody().symbol()).isEqualTo("ACME");
		StatsView stats = stats();
		assertThat(stats.requests()).isEqualTo(3);
		assertThat(stats.unavailable()).isEqualTo(1);
		assertThat(stats.throttled()).isEqualTo(1);
		assertThat(this.recorder).method("quote-service GET").lastCall().endedWith(Outcome.SUCCESS_AFTER_RETRY)
			.madeAttempts(3);
		assertThat(this.http.metricCount("backoff.retries", METHOD, "exception:TooManyRequests") - throttledBefore)
			.isEqualTo(1);
	}

	@Test
	void aNotFoundIsNotRetriedAndReachesTheCallerAsWithoutRetries() {
		ResponseEntity<JsonNode> response = this.http.get("/http/quotes/NOPE", JsonNode.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
		assertThat(stats().requests()).isEqualTo(1);
		assertThat(this.recorder).method("quote-service GET").lastCall().endedWith(Outcome.NOT_RETRYABLE);
	}

	@Test
	void theEndpointListsTheClientUnderItsPolicyWithBothSchedules() {
		this.http.get("/http/quotes/ACME", Quote.class);
		JsonNode policy = this.http.get("/actuator/backoff", JsonNode.class).getBody().get("policies")
			.get("quote-service");
		assertThat(policy.get("methods").has("quote-service GET")).isTrue();
		assertThat(policy.get("settings").get("throttleBaseDelay").asString()).isEqualTo("1s");
		JsonNode preview = this.http.get("/actuator/backoff/quote-service", JsonNode.class).getBody();
		assertThat(preview.get("schedule").get(0).get("ceiling").asString()).isEqualTo("100ms");
		assertThat(preview.get("throttling").get(0).get("ceiling").asString()).isEqualTo("1s");
	}

	private void setFaults(String query) {
		assertThat(this.http.post("/downstream/faults?" + query, String.class).getStatusCode()).isEqualTo(HttpStatus.OK);
	}

	private StatsView stats() {
		return this.http.get("/downstream/stats", StatsView.class).getBody();
	}

}
