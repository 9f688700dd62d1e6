package dev.backoff.sample;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.backoff.sample.downstream.DownstreamFaults.StatsView;

import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code downstream} policy's retry budget over real HTTP: while the downstream fails every
 * request, retries stop after the budget's first failures, so the service adds almost no load;
 * once it recovers, successes refill the budget and retries resume.
 */
@SampleAppTest
class OutageTests {

	private static final String POLICY = "policy:downstream";

	@LocalServerPort
	private int port;

	private SampleHttp http;

	@BeforeEach
	void resetDownstream() {
		this.http = new SampleHttp(this.port);
		this.http.delete("/downstream/stats");
		// Whatever ran before in the shared context: @InstantBackoff fills every budget up first.
		assertThat(this.http.metric("VALUE", "backoff.budget.tokens", "policy:downstream"))
			.isEqualTo(SampleHttp.DOWNSTREAM_MAX_TOKENS);
	}

	@Test
	void aFullOutageCostsAboutOneDownstreamCallPerRequest() {
		double budgetExhaustedBefore = calls("budget_exhausted");
		setFaults("failureRate=1.0");
		int requests = 100;
		for (int i = 0; i < requests; i++) {
			assertThat(this.http.get("/quotes/ACME", String.class).getStatusCode()).isEqualTo(HttpStatus.BAD_GATEWAY);
		}
		StatsView stats = stats();
		// Without the budget: 4 attempts per request, 400 calls. With it: 20 tokens, and a retry
		// only while more than 10 are left after the failure. The first two requests make all 4
		// attempts (19, 18, 17, 16 left; then 15, 14, 13, 12), the third retries once (11, then
		// 10: stop), and every later request makes one attempt: 4 + 4 + 2 + 97.
		assertThat(stats.requests()).isEqualTo(107);
		assertThat((double) stats.requests() / requests).isLessThanOrEqualTo(1.2);
		assertThat(calls("budget_exhausted") - budgetExhaustedBefore).isGreaterThan(90);
		assertThat(this.http.metric("VALUE", "backoff.budget.tokens", POLICY)).isZero();
	}

	@Test
	void retriesResumeOnceSuccessesRefillTheBudget() {
		setFaults("failureRate=1.0");
		for (int i = 0; i < 30; i++) {
			this.http.get("/quotes/ACME", String.class);
		}
		assertThat(this.http.metric("VALUE", "backoff.budget.tokens", POLICY)).isZero();
		// Recovered. From empty, 23 successes of half a token leave 11.5: a failure then leaves
		// 10.5, more than half of 20, so it is retried again.
		this.http.delete("/downstream/stats");
		for (int i = 0; i < 23; i++) {
			assertThat(this.http.get("/quotes/ACME", String.class).getStatusCode()).isEqualTo(HttpStatus.OK);
		}
		assertThat(this.http.metric("VALUE", "backoff.budget.tokens", POLICY)).isEqualTo(11.5);
		setFaults("failNext=1");
		assertThat(this.http.get("/quotes/ACME", String.class).getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(stats().requests()).isEqualTo(23 + 2);
	}

	@Test
	void beforeTheBudgetRefillsAFailureIsNotRetried() {
		setFaults("failureRate=1.0");
		for (int i = 0; i < 30; i++) {
			this.http.get("/quotes/ACME", String.class);
		}
		this.http.delete("/downstream/stats");
		for (int i = 0; i < 10; i++) {
			this.http.get("/quotes/ACME", String.class);
		}
		setFaults("failNext=1");
		assertThat(this.http.get("/quotes/ACME", String.class).getStatusCode()).isEqualTo(HttpStatus.BAD_GATEWAY);
		assertThat(stats().requests()).isEqualTo(10 + 1);
	}

	private void setFaults(String query) {
		assertThat(this.http.post("/downstream/faults?" + query, String.class).getStatusCode()).isEqualTo(HttpStatus.OK);
	}

	private StatsView stats() {
		return this.http.get("/downstream/stats", StatsView.class).getBody();
	}

	private double calls(String outcome) {
		return this.http.metricCount("backoff.calls", "method:QuoteClient.fetch", "outcome:" + outcome);
	}

}
