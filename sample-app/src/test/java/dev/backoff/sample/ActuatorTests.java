package dev.backoff.sample;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Actuator endpoints the sample exposes: health, metrics, prometheus and backoff, the last
 * read-only as by default ({@link LivePoliciesTests} changes policies through it).
 */
@SampleAppTest
class ActuatorTests {

	@LocalServerPort
	private int port;

	private SampleHttp http;

	@BeforeEach
	void client() {
		this.http = new SampleHttp(this.port);
	}

	@Test
	void healthIsUp() {
		ResponseEntity<JsonNode> health = this.http.get("/actuator/health", JsonNode.class);
		assertThat(health.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(health.getBody().get("status").asString()).isEqualTo("UP");
	}

	@Test
	void backoffEndpointListsEveryPolicyWithItsJitter() {
		ResponseEntity<JsonNode> response = this.http.get("/actuator/backoff", JsonNode.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		JsonNode policies = response.getBody().get("policies");
		assertThat(policies.propertyNames()).containsExactly("defaults", "downstream", "quote-service", "reads", "guarded", "optimistic", "polling",
				"contention-none", "contention-full", "contention-equal", "contention-decorrelated");
		assertThat(jitter(policies, "downstream")).isEqualTo("full");
		assertThat(jitter(policies, "optimistic")).isEqualTo("full");
		assertThat(jitter(policies, "polling")).isEqualTo("none");
		for (String jitter : new String[] { "none", "full", "equal", "decorrelated" }) {
			assertThat(jitter(policies, "contention-" + jitter)).isEqualTo(jitter);
		}
		JsonNode downstream = policies.get("downstream");
		// No retry-on: the starter's HTTP classification decides.
		assertThat(downstream.get("settings").get("retryOn")).isEmpty();
		assertThat(downstream.get("settings").get("maxRetryAfter").asString()).isEqualTo("5s");
		JsonNode budget = downstream.get("settings").get("budget");
		assertThat(budget.get("maxTokens").asDouble()).isEqualTo(20.0);
		assertThat(budget.get("tokenRatio").asDouble()).isEqualTo(0.5);
		assertThat(budget.get("tokens").asDouble()).isBetween(0.0, 20.0);
		assertThat(policies.get("polling").get("settings").has("budget")).isFalse();
		// The hedged reads follow their own latency, with the fixed delay until it is known.
		JsonNode reads = policies.get("reads").get("settings");
		assertThat(reads.get("hedgePercentile").asDouble()).isEqualTo(95.0);
		assertThat(reads.get("hedgeDelay").asString()).isEqualTo("50ms");
		assertThat(reads.get("maxHedges").asInt()).isOne();
		// Its hedges within 5 % of its calls, with nothing set; a policy that does not hedge lists no cap.
		assertThat(reads.get("hedgeMaxExtraLoad").asDouble()).isEqualTo(0.05);
		assertThat(downstream.get("settings").has("hedgeMaxExtraLoad")).isFalse();
		assertThat(response.getBody().get("nested").asString()).isEqualTo("outermost");
		assertThat(downstream.get("methods").has("QuoteClient.fetch")).isTrue();
		JsonNode poller = policies.get("polling").get("methods").get("JobPoller.awaitResult");
		assertThat(poller.get("settings").get("retryIf").asBoolean()).isTrue();
		assertThat(policies.get("contention-full").get("methods").has("ContentionClients.incrementWithFullJitter"))
			.isTrue();
	}

	@Test
	void backoffEndpointPreviewsAPolicy() {
		ResponseEntity<JsonNode> response = this.http.get("/actuator/backoff/polling", JsonNode.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(response.getBody().get("schedule")).hasSize(9);
		assertThat(this.http.get("/actuator/backoff/no-such-policy", JsonNode.class).getStatusCode())
			.isEqualTo(HttpStatus.NOT_FOUND);
	}

	@Test
	void backoffEndpointsEventsAnswerAnUnknownPolicy404AndAnUnknownKind400OverHttp() {
		assertThat(this.http.get("/actuator/backoff/downstream/events", JsonNode.class).getStatusCode())
			.isEqualTo(HttpStatus.OK);
		assertThat(this.http.get("/actuator/backoff/nope/events", JsonNode.class).getStatusCode())
			.isEqualTo(HttpStatus.NOT_FOUND);
		ResponseEntity<JsonNode> kind = this.http.get("/actuator/backoff/downstream/events?kind=retry", JsonNode.class);
		assertThat(kind.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
		assertThat(kind.getBody().get("message").asString()).startsWith("No kind of event is named 'retry'");
		ResponseEntity<JsonNode> method = this.http
			.get("/actuator/backoff/downstream/events?method=NoSuch.method", JsonNode.class);
		assertThat(method.getBody().get("events")).isEmpty();
	}

	@Test
	void theBackoffEndpointRefusesChangesByDefault() {
		// No management.endpoint.backoff.access here: the endpoint's default, read-only, applies.
		ResponseEntity<JsonNode> change = this.http.postJson("/actuator/backoff/downstream", "{\"maxAttempts\": 1}");
		assertThat(change.getStatusCode()).isEqualTo(HttpStatus.METHOD_NOT_ALLOWED);
		// Not a bare 405: the answer names the property that allows changes.
		assertThat(change.getHeaders().getAllow()).containsExactly(HttpMethod.GET);
		assertThat(change.getBody().get("message").asString())
			.startsWith("The backoff endpoint is read-only, so it changes no policy. "
					+ "Set management.endpoint.backoff.access=unrestricted");
		assertThat(change.getBody().get("path").asString()).isEqualTo("/actuator/backoff/downstream");
		assertThat(change.getBody())
			.isEqualTo(JsonMapper.shared().readTree(Docs.block("../docs/endpoint.md", "json", "Method Not Allowed")));
		ResponseEntity<JsonNode> reset = this.http.deleteJson("/actuator/backoff/downstream");
		assertThat(reset.getStatusCode()).isEqualTo(HttpStatus.METHOD_NOT_ALLOWED);
		assertThat(reset.getBody().get("message").asString()).contains("management.endpoint.backoff.access=unrestricted");
		// Anything else under the endpoint is Actuator's as before.
		assertThat(this.http.postJson("/actuator/backoff", "{}").getStatusCode()).isEqualTo(HttpStatus.METHOD_NOT_ALLOWED);
		assertThat(this.http.get("/actuator/backoff/no-such-policy", JsonNode.class).getStatusCode())
			.isEqualTo(HttpStatus.NOT_FOUND);
		JsonNode downstream = this.http.get("/actuator/backoff", JsonNode.class).getBody().get("policies").get("downstream");
		assertThat(downstream.get("settings").get("maxAttempts").asInt()).isEqualTo(4);
		assertThat(downstream.has("changes")).isFalse();
	}

	@Test
	void prometheusScrapesTheBackoffMeters() {
		assertThat(this.http.delete("/downstream/stats").getStatusCode()).isEqualTo(HttpStatus.NO_CONTENT);
		// One 503, then the quote: a retry registers the delay, retries and attempts meters.
		assertThat(this.http.post("/downstream/faults?failNext=1", String.class).getStatusCode())
			.isEqualTo(HttpStatus.OK);
		assertThat(this.http.get("/quotes/ACME", JsonNode.class).getStatusCode()).isEqualTo(HttpStatus.OK);
		ResponseEntity<String> scrape = this.http.get("/actuator/prometheus", String.class);
		assertThat(scrape.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(scrape.getBody()).contains("backoff_calls_total{", "method=\"QuoteClient.fetch\"",
				"outcome=\"success_after_retry\"", "backoff_retries_total{");
		// The series the sample's README names under "What to watch": a timer and a summary have
		// _count, _sum and _max, and no series of their bare name to query; the sample's
		// percentiles-histogram gives the delay its _bucket series, and every series its application.
		assertThat(scrape.getBody()).contains("\nbackoff_delay_seconds_count{", "\nbackoff_delay_seconds_sum{",
				"\nbackoff_delay_seconds_max{", "\nbackoff_attempts_count{", "\nbackoff_attempts_sum{",
				"\nbackoff_attempts_max{", "\nbackoff_delay_seconds_bucket{", "\nbackoff_max_delay_seconds{",
				"\nbackoff_delay_ceiling_seconds{",
				"application=\"backoff-sample\"")
			.doesNotContain("\nbackoff_delay_seconds{", "\nbackoff_attempts{");
		assertThat(this.http.delete("/downstream/stats").getStatusCode()).isEqualTo(HttpStatus.NO_CONTENT);
	}

	private static String jitter(JsonNode policies, String name) {
		return policies.get(name).get("settings").get("jitter").asString();
	}

}
