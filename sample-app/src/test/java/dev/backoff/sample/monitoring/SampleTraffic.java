package dev.backoff.sample.monitoring;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.backoff.sample.SampleHttp;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.retry.BackoffRetries;
import dev.backoff.spring.retry.PolicyBackOff.Cycle;
import dev.backoff.spring.retry.PolicyBackOff;

import org.springframework.http.HttpStatus;
import org.springframework.util.backoff.BackOffExecution;

import static org.assertj.core.api.Assertions.assertThat;

/** Traffic through the sample that ends in every outcome that the sample has a call for. */
final class SampleTraffic {

	/** The ledgers (one per context) of the contexts that have had a whole round of traffic. */
	private static final Set<QuoteLedger> produced = ConcurrentHashMap.newKeySet();

	private final SampleHttp http;

	private final BackoffPolicies policies;

	private final BackoffRetries retries;

	private final QuoteLedger ledger;

	SampleTraffic(SampleHttp http, BackoffPolicies policies, BackoffRetries retries, QuoteLedger ledger) {
		this.http = http;
		this.policies = policies;
		this.retries = retries;
		this.ledger = ledger;
	}

	/**
	 * Every outcome but {@code nested}, each through the path that produces it in production:
	 * the quote client against the faulty downstream, the HTTP client's interceptor, a hedged read,
	 * a message consumer's retry cycles as Spring Kafka's error handler drives them, and a Kafka
	 * listener whose policy has a budget left in an outage: its downstream down, every partition
	 * paused ({@link #outageEnds()} ends it).
	 */
	void produceEveryOutcome() {
		// The last round's outage ends first: a budget refilled while the ledger is down would tell
		// the listener that its records fail on their own (poison), and send them to the recoverer.
		if (this.ledger.isDown()) {
			this.ledger.outageEnds();
		}
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
		String listener = "method=\"" + QuoteLedger.LISTENER + "\"";
		this.ledger.outageBegins(() -> this.http.prometheusSum("backoff_kafka_paused_partitions", listener));
		// Until the outage has lasted backoff.kafka.outage-alert-after, so that its alert and its
		// health see it (a refill of the budgets above may have let the partitions go for a moment).
		QuoteLedger.await(Duration.ofSeconds(30),
				() -> this.http.prometheusSum("backoff_kafka_paused_seconds", listener) >= this.http
					.prometheusSum("backoff_kafka_outage_alert_after_seconds", listener),
				"the outage of " + QuoteLedger.LISTENER + " lasting backoff.kafka.outage-alert-after");
		produced.add(this.ledger);
	}

	/**
	 * Every outcome in the scrape, for a test that reads it and needs no traffic of its own: a
	 * round only if this context has had none (the counters only grow, and a round takes seconds).
	 */
	void produceEveryOutcomeOnce() {
		if (!produced.contains(this.ledger)) {
			produceEveryOutcome();
		}
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

	/**
	 * Ends the Kafka listener's outage: once its downstream is back, every record sent is written,
	 * and none was dead-lettered.
	 */
	void outageEnds() {
		this.ledger.outageEnds();
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
