package dev.backoff.sample;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import dev.backoff.sample.contention.ContentionReport;
import dev.backoff.sample.contention.ContentionResult;

import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario 4: {@code POST /experiments/contention} runs N concurrent clients against one row
 * with each jitter, through the real annotated methods.
 */
@SampleAppTest
class ContentionExperimentTests {

	private static final int CLIENTS = 20;

	@LocalServerPort
	private int port;

	private SampleHttp http;

	@BeforeEach
	void client() {
		this.http = new SampleHttp(this.port);
	}

	@Test
	void runsEveryJitterWithEachClientUpdatingOnce() {
		ResponseEntity<ContentionReport> response = this.http.post("/experiments/contention?clients=" + CLIENTS,
				ContentionReport.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		ContentionReport report = response.getBody();
		assertThat(report.clients()).isEqualTo(CLIENTS);
		assertThat(report.strategies()).extracting(ContentionResult::jitter)
			.containsExactly("none", "full", "equal", "decorrelated");
		for (ContentionResult result : report.strategies()) {
			assertThat(result.policy()).isEqualTo("contention-" + result.jitter());
			assertThat(result.clients()).isEqualTo(CLIENTS);
			assertThat(result.successfulUpdates()).as(result.jitter()).isEqualTo(CLIENTS);
			assertThat(result.failedClients()).as(result.jitter()).isZero();
			assertThat(result.finalTotal()).as("the row was reset, then incremented once per client")
				.isEqualTo(CLIENTS);
			assertThat(result.attempts()).isEqualTo(CLIENTS + result.retries());
			assertThat(result.meteredRetries()).as("backoff.retries agrees with the UPDATEs sent")
				.isEqualTo(result.retries());
			assertThat(result.maxAttemptsPerClient()).isBetween(1L, result.attempts());
			assertThat(result.elapsedMillis()).isNotNegative();
		}
	}

	@Test
	void rejectsAClientCountOutOfRange() {
		ResponseEntity<JsonNode> none = this.http.post("/experiments/contention?clients=0", JsonNode.class);
		assertThat(none.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
		ResponseEntity<JsonNode> tooMany = this.http.post("/experiments/contention?clients=501", JsonNode.class);
		assertThat(tooMany.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
	}

}
