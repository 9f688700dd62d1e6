package dev.backoff.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import dev.backoff.sample.downstream.DownstreamFaults.StatsView;

import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The downstream's latency tail ({@code slowRate}, {@code slowDelay}): which requests are slow
 * follows the seeded generator, a slow answer comes after the delay and is still the answer,
 * and slow answers hold no servlet thread while they wait.
 */
@SampleAppTest
class SlowDownstreamTests {

	/** {@code sample.downstream.seed}'s default: the test profile keeps it. */
	private static final long SEED = 42;

	@LocalServerPort
	private int port;

	private SampleHttp http;

	private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	@BeforeEach
	void resetDownstream() {
		this.http = new SampleHttp(this.port);
		assertThat(this.http.delete("/downstream/stats").getStatusCode()).isEqualTo(HttpStatus.NO_CONTENT);
	}

	@Test
	void answersTheSeededShareOfRequestsAfterTheSlowDelay() throws Exception {
		setFaults("slowRate=0.25&slowDelay=50ms");
		Random server = new Random(SEED);
		int requests = 40;
		List<Integer> expectedSlow = new ArrayList<>();
		for (int i = 0; i < requests; i++) {
			if (server.nextDouble() < 0.25) {
				expectedSlow.add(i);
			}
		}
		long[] millis = new long[requests];
		for (int i = 0; i < requests; i++) {
			long start = System.nanoTime();
			HttpResponse<String> response = quote();
			millis[i] = Duration.ofNanos(System.nanoTime() - start).toMillis();
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.body()).isEqualTo("{\"symbol\":\"ACME\",\"price\":123.45}");
		}
		assertThat(expectedSlow).as("the seed draws some slow requests, not all").hasSizeBetween(3, 20);
		for (int i : expectedSlow) {
			assertThat(millis[i]).as("request %d, drawn slow", i).isGreaterThanOrEqualTo(50);
		}
		StatsView stats = stats();
		assertThat(stats.requests()).isEqualTo(requests);
		assertThat(stats.ok()).isEqualTo(requests);
		assertThat(stats.slow()).isEqualTo(expectedSlow.size());
	}

	@Test
	void slowAnswersHoldNoServletThread() {
		// More slow requests than Tomcat has threads (200): were each to hold one while it waits,
		// the last 50 could not even be received before the first answers left.
		setFaults("slowRate=1&slowDelay=2s");
		int requests = 250;
		List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
		for (int i = 0; i < requests; i++) {
			answers.add(this.client.sendAsync(request("/downstream/quotes/ACME"), BodyHandlers.ofString()));
		}
		StatsView received = stats();
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (received.requests() < requests && System.nanoTime() < deadline) {
			received = stats();
		}
		boolean anyAnswered = answers.stream().anyMatch(CompletableFuture::isDone);
		assertThat(received.requests()).isEqualTo(requests);
		assertThat(received.slow()).isEqualTo(requests);
		assertThat(anyAnswered).as("an answer came before every request was received").isFalse();
		assertThat(answers).allSatisfy((answer) -> assertThat(answer.join().statusCode()).isEqualTo(200));
	}

	@Test
	void rejectsABadSlowRateOrDelayNamingIt() {
		assertThat(badSetting("slowRate=1.5")).isEqualTo("slowRate must be between 0 and 1, but was 1.5");
		assertThat(badSetting("slowDelay=11s")).isEqualTo("slowDelay must be between 0 and 10s, but was 11000ms");
		assertThat(badSetting("slowDelay=soon"))
			.isEqualTo("slowDelay must be a duration such as 50ms, 1s or PT1S, but was 'soon'");
	}

	private String badSetting(String query) {
		ResponseEntity<JsonNode> response = this.http.postJson("/downstream/faults?" + query, "{}");
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
		return response.getBody().get("detail").asString();
	}

	private HttpResponse<String> quote() throws Exception {
		return this.client.send(request("/downstream/quotes/ACME"), BodyHandlers.ofString());
	}

	private HttpRequest request(String path) {
		return HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).build();
	}

	private void setFaults(String query) {
		assertThat(this.http.post("/downstream/faults?" + query, String.class).getStatusCode()).isEqualTo(HttpStatus.OK);
	}

	private StatsView stats() {
		return this.http.get("/downstream/stats", StatsView.class).getBody();
	}

}
