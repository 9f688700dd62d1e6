package dev.backoff.sample;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import dev.backoff.sample.jobs.JobState;
import dev.backoff.sample.jobs.JobStatus;

import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario 3: {@code GET /jobs/{id}/result} polls a job under the {@code polling} policy
 * (10 attempts, no jitter), again while {@code #result.status} is {@code NOT_READY}.
 */
@SampleAppTest
class JobPollingTests {

	private static final String METHOD = "method:JobPoller.awaitResult";

	@LocalServerPort
	private int port;

	private SampleHttp http;

	@BeforeEach
	void client() {
		this.http = new SampleHttp(this.port);
	}

	@Test
	void pollsUntilTheJobIsReady() {
		double resultRetriesBefore = this.http.metricCount("backoff.retries", METHOD, "exception:none");
		ResponseEntity<JobStatus> started = this.http.post("/jobs?readyAfterPolls=3", JobStatus.class);
		assertThat(started.getStatusCode()).isEqualTo(HttpStatus.ACCEPTED);
		String id = started.getBody().id();
		assertThat(started.getHeaders().getLocation()).hasPath("/jobs/" + id);
		ResponseEntity<JobStatus> result = this.http.get("/jobs/" + id + "/result", JobStatus.class);
		assertThat(result.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(result.getBody().status()).isEqualTo(JobState.READY);
		assertThat(result.getBody().polls()).isEqualTo(3);
		assertThat(result.getBody().result()).isEqualTo("report-" + id + ".csv");
		// The retries were asked for by results, not failures: tagged exception=none.
		assertThat(this.http.metricCount("backoff.retries", METHOD, "exception:none") - resultRetriesBefore)
			.isEqualTo(2);
	}

	@Test
	void doesNotPollAReadyJobAgain() {
		double retriesBefore = retries();
		String id = start("readyAfterPolls=1");
		ResponseEntity<JobStatus> result = this.http.get("/jobs/" + id + "/result", JobStatus.class);
		assertThat(result.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(result.getBody().polls()).isEqualTo(1);
		assertThat(retries() - retriesBefore).isZero();
	}

	@Test
	void answersAcceptedWithTheLastStatusWhenTheJobOutlastsThePolicy() {
		double exhaustedBefore = this.http.metricCount("backoff.calls", METHOD, "outcome:exhausted");
		String id = start("readyAfterPolls=50");
		ResponseEntity<JobStatus> result = this.http.get("/jobs/" + id + "/result", JobStatus.class);
		assertThat(result.getStatusCode()).isEqualTo(HttpStatus.ACCEPTED);
		assertThat(result.getBody().status()).isEqualTo(JobState.NOT_READY);
		assertThat(result.getBody().polls()).as("max-attempts of the polling policy").isEqualTo(10);
		assertThat(this.http.metricCount("backoff.calls", METHOD, "outcome:exhausted") - exhaustedBefore)
			.isEqualTo(1);
	}

	@Test
	void aTimedJobIsReadyOnceItsTimeHasPassed() {
		String id = start("readyAfter=0s");
		ResponseEntity<JobStatus> result = this.http.get("/jobs/" + id + "/result", JobStatus.class);
		assertThat(result.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(result.getBody().polls()).isEqualTo(1);
	}

	@Test
	void singlePollsAreNotRetried() {
		String id = start("readyAfterPolls=3");
		JobStatus first = this.http.get("/jobs/" + id, JobStatus.class).getBody();
		assertThat(first.status()).isEqualTo(JobState.NOT_READY);
		assertThat(first.polls()).isEqualTo(1);
	}

	@Test
	void doesNotPollAnUnknownJob() {
		double notRetryableBefore = this.http.metricCount("backoff.calls", METHOD, "outcome:not_retryable");
		double retriesBefore = retries();
		ResponseEntity<JsonNode> result = this.http.get("/jobs/no-such-job/result", JsonNode.class);
		assertThat(result.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
		assertThat(retries() - retriesBefore).isZero();
		assertThat(this.http.metricCount("backoff.calls", METHOD, "outcome:not_retryable") - notRetryableBefore)
			.isEqualTo(1);
	}

	private String start(String query) {
		ResponseEntity<JobStatus> started = this.http.post("/jobs?" + query, JobStatus.class);
		assertThat(started.getStatusCode()).isEqualTo(HttpStatus.ACCEPTED);
		return started.getBody().id();
	}

	private double retries() {
		return this.http.metricCount("backoff.retries", METHOD);
	}

}
