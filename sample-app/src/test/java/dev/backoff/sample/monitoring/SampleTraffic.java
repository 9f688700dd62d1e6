package dev.backoff.sample.monitoring;

import dev.backoff.sample.SampleHttp;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.retry.BackoffRetries;
import dev.backoff.spring.retry.PolicyBackOff;
import dev.backoff.spring.retry.PolicyBackOff.Cycle;

import org.springframework.http.HttpStatus;
import org.springframework.util.backoff.BackOffExecution;

import static org.assertj.core.api.Assertions.assertThat;

/** Traffic through the sample that ends in every outcome that the sample has a call for. */
final class SampleTraffic {

	private final SampleHttp http;

	private final BackoffPolicies policies;

	private final BackoffRetries retries;

	SampleTraffic(SampleHttp http, BackoffPolicies policies, BackoffRetries retries) {
		this.http = http;
		this.policies = policies;
		this.retries = retries;
	}

	/**
	 * Every outcome but {@code nested}, each through the path that produces it in production:
	 * the quote client against the faulty downstream, the HTTP client's interceptor, a hedged read,
	 * and a message consumer's retry cycles as Spring Kafka's error handler drives them.
	 */
	void produceEveryOutcome() {
		// What @InstantBackoff does before each test: a full budget, whatever ran before.
		this.policies.refillBudgets();
		this.http.delete("/downstream/stats");
		quote("ACME", HttpStatus.OK);
		faults("failNext=2");
		quote("ACME", HttpStatus.OK);
		// A 429 whose Retry-After of 2s is waited (under @InstantBackoff: recorded): max-delay.
		faults("throttleNext=1&retryAfter=2");
		quote("ACME", HttpStatus.OK);
		// Beyond max-retry-after (5s): timed_out.
		faults("throttleNext=1&retryAfter=10");
		quote("ACME", HttpStatus.BAD_GATEWAY);
		quote("NOPE", HttpStatus.NOT_FOUND);
		faults("failNext=4");
		quote("ACME", HttpStatus.BAD_GATEWAY);
		// An outage: two calls of 4 attempts, one of 2, then the budget refuses the retries.
		faults("failureRate=1.0");
		for (int i = 0; i < 4; i++) {
			quote("ACME", HttpStatus.BAD_GATEWAY);
		}
		this.http.delete("/downstream/stats");
		this.policies.refillBudgets();
		faults("failNext=1");
		assertThat(this.http.get("/http/quotes/ACME", String.class).getStatusCode()).isEqualTo(HttpStatus.OK);
		// A hedged read whose first answer is held back: a hedge sent, won, the slow copy cancelled.
		faults("slowNext=1&slowDelay=1s");
		assertThat(this.http.get("/quotes/ACME/hedged", String.class).getStatusCode()).isEqualTo(HttpStatus.OK);
		consume();
		guarded();
	}

	/**
	 * The guarded policy's controls: a 429 wakes its pace, so that the next requests wait for their
	 * slots (recorded under @InstantBackoff); then an outage, in which admission rejects requests
	 * locally (admission_rejected, answered 503). Admission remembers an earlier run's outage for
	 * its window, so a request may be rejected from the start.
	 */
	private void guarded() {
		this.http.delete("/downstream/stats");
		faults("throttleNext=1&retryAfter=0");
		for (int i = 0; i < 2; i++) {
			// Rejected (503), or its retry rejected after the 429 (502), while admission remembers an outage.
			assertThat(this.http.get("/guarded/quotes/ACME", String.class).getStatusCode()).isIn(HttpStatus.OK,
					HttpStatus.BAD_GATEWAY, HttpStatus.SERVICE_UNAVAILABLE);
		}
		faults("failureRate=1.0");
		int rejected = 0;
		for (int i = 0; i < 20; i++) {
			HttpStatus status = HttpStatus.valueOf(this.http.get("/guarded/quotes/ACME", String.class)
				.getStatusCode()
				.value());
			assertThat(status).isIn(HttpStatus.BAD_GATEWAY, HttpStatus.SERVICE_UNAVAILABLE);
			rejected += (status == HttpStatus.SERVICE_UNAVAILABLE) ? 1 : 0;
		}
		assertThat(rejected).isPositive();
		this.http.delete("/downstream/stats");
	}

	/** A consumer's records: one at once, one after two failures, one never, one whose container stops. */
	private void consume() {
		PolicyBackOff backOff = this.retries.backOff("downstream", "quote-events");
		IllegalStateException failure = new IllegalStateException("downstream down");
		backOff.succeededAtOnce();
		Cycle twice = backOff.start();
		for (int i = 0; i < 2; i++) {
			twice.failed(failure);
			assertThat(twice.nextBackOff()).isNotEqualTo(BackOffExecution.STOP);
		}
		twice.succeeded();
		Cycle never = backOff.start();
		do {
			never.failed(failure);
		}
		while (never.nextBackOff() != BackOffExecution.STOP);
		Cycle stopped = backOff.start();
		stopped.failed(failure);
		stopped.nextBackOff();
		stopped.interrupted(failure);
	}

	private void quote(String symbol, HttpStatus expected) {
		assertThat(this.http.get("/quotes/" + symbol, String.class).getStatusCode()).isEqualTo(expected);
	}

	private void faults(String query) {
		assertThat(this.http.post("/downstream/faults?" + query, String.class).getStatusCode()).isEqualTo(HttpStatus.OK);
	}

}
