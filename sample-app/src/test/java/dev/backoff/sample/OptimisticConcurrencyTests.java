package dev.backoff.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import dev.backoff.sample.counters.CounterRow;

import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario 2: {@code POST /counters/1/increment} reads the row, then writes it back only if
 * its version is unchanged; a conflict is retried under the {@code optimistic} policy
 * (10 attempts), re-reading the version each time. Conflicts are made real by a rival writer
 * that commits between the read and the write.
 */
@SampleAppTest
class OptimisticConcurrencyTests {

	private static final String METHOD = "method:CounterService.increment";

	@LocalServerPort
	private int port;

	private SampleHttp http;

	@BeforeEach
	void resetCounter() {
		this.http = new SampleHttp(this.port);
		assertThat(this.http.delete("/counters/1").getStatusCode()).isEqualTo(HttpStatus.NO_CONTENT);
	}

	@AfterEach
	void clearRivals() {
		conflictNext(0);
	}

	@Test
	void retriesAConflictAndRereadsTheVersion() {
		double retriesBefore = retries();
		double afterRetryBefore = this.http.metricCount("backoff.calls", METHOD, "outcome:success_after_retry");
		conflictNext(2);
		ResponseEntity<CounterRow> response = this.http.post("/counters/1/increment", CounterRow.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		// Two rival increments, then ours, written over the version it re-read.
		assertThat(response.getBody()).isEqualTo(new CounterRow(1, 3, 3));
		assertThat(this.http.get("/counters/1", CounterRow.class).getBody()).isEqualTo(new CounterRow(1, 3, 3));
		assertThat(retries() - retriesBefore).isEqualTo(2);
		assertThat(this.http.metricCount("backoff.retries", METHOD, "exception:OptimisticConflictException"))
			.isGreaterThanOrEqualTo(2);
		assertThat(this.http.metricCount("backoff.calls", METHOD, "outcome:success_after_retry") - afterRetryBefore)
			.isEqualTo(1);
	}

	@Test
	void answersConflictWhenConflictsOutlastThePolicy() {
		double retriesBefore = retries();
		conflictNext(20);
		ResponseEntity<JsonNode> response = this.http.post("/counters/1/increment", JsonNode.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
		assertThat(retries() - retriesBefore).as("max-attempts of the optimistic policy, less one").isEqualTo(9);
		// Only the ten rivals wrote.
		assertThat(this.http.get("/counters/1", CounterRow.class).getBody()).isEqualTo(new CounterRow(1, 10, 10));
	}

	@Test
	void concurrentIncrementsAllCount() throws Exception {
		int clients = 8;
		ExecutorService pool = Executors.newFixedThreadPool(clients);
		try {
			List<Future<ResponseEntity<CounterRow>>> responses = new ArrayList<>();
			for (int i = 0; i < clients; i++) {
				responses.add(pool.submit(() -> this.http.post("/counters/1/increment", CounterRow.class)));
			}
			for (Future<ResponseEntity<CounterRow>> response : responses) {
				assertThat(response.get(30, TimeUnit.SECONDS).getStatusCode()).isEqualTo(HttpStatus.OK);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(this.http.get("/counters/1", CounterRow.class).getBody().total()).isEqualTo(clients);
	}

	@Test
	void doesNotRetryAnUnknownCounter() {
		double retriesBefore = retries();
		ResponseEntity<JsonNode> response = this.http.post("/counters/99/increment", JsonNode.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
		assertThat(retries() - retriesBefore).isZero();
	}

	private void conflictNext(int count) {
		assertThat(this.http.post("/counters/faults?conflictNext=" + count, String.class).getStatusCode())
			.isEqualTo(HttpStatus.OK);
	}

	private double retries() {
		return this.http.metricCount("backoff.retries", METHOD);
	}

}
