package dev.backoff.sample;

import java.math.BigDecimal;

import dev.backoff.sample.downstream.DownstreamFaults.StatsView;
import dev.backoff.sample.quotes.Quote;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario 1c: {@code GET /quotes/{symbol}/hedged} reads the quote through {@code QuoteReads},
 * hedged under the {@code reads} policy. A downstream answer held back by the slow tail is
 * hedged after 50ms (a real timer: {@code @InstantBackoff} skips the waits between attempts,
 * not the hedge delay), and the fast copy's answer is the caller's. (That a quick answer sends no
 * hedge is timing here; the core's tests show it in virtual time.)
 */
@SampleAppTest
class HedgedReadsTests {

	private static final String METHOD = "method:QuoteReads.fetch";

	@LocalServerPort
	private int port;

	private SampleHttp http;

	@BeforeEach
	void resetDownstream() {
		this.http = new SampleHttp(this.port);
		assertThat(this.http.delete("/downstream/stats").getStatusCode()).isEqualTo(HttpStatus.NO_CONTENT);
	}

	@Test
	void anAnswerHeldBackIsHedgedAndTheFastCopyAnswers() {
		double sent = hedges("sent");
		double won = hedges("won");
		double cancelled = hedges("cancelled");
		assertThat(this.http.post("/downstream/faults?slowNext=1&slowDelay=5s", String.class).getStatusCode())
			.isEqualTo(HttpStatus.OK);
		ResponseEntity<Quote> response = this.http.get("/quotes/ACME/hedged", Quote.class);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(response.getBody()).isEqualTo(new Quote("ACME", new BigDecimal("123.45")));
		StatsView stats = this.http.get("/downstream/stats", StatsView.class).getBody();
		assertThat(stats.requests()).isEqualTo(2);
		assertThat(stats.slow()).isEqualTo(1);
		assertThat(hedges("sent") - sent).isOne();
		assertThat(hedges("won") - won).isOne();
		assertThat(hedges("cancelled") - cancelled).isOne();
	}

	@Test
	void aNotFoundIsTheCallersAnswer() {
		assertThat(this.http.get("/quotes/NOPE/hedged", String.class).getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
		// Not retried; one hedge at most, should the 404 take longer than the hedge delay on a busy machine.
		assertThat(this.http.get("/downstream/stats", StatsView.class).getBody().requests()).isBetween(1L, 2L);
	}

	private double hedges(String event) {
		return this.http.metricCount("backoff.hedges", METHOD, "event:" + event);
	}

}
