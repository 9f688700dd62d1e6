package dev.backoff.sample.hedging;

import java.time.Duration;
import java.util.Map;
import java.util.Random;

import dev.backoff.HedgeTokens;
import dev.backoff.sample.SampleAppTest;
import dev.backoff.sample.SampleProperties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real-HTTP hedging harness against the real sample, with few calls: only what holds
 * whatever the timing on a shared machine. Every call succeeds (no variant here times anything
 * out); the downstream receives one request per call without hedging, and never more than the
 * copies a hedged call may send; its slow answers are exactly those its seeded dice drew for the
 * requests it received. Against the tests' shared sample (its policies wait nothing between
 * retries, which changes no bound checked here).
 */
@SampleAppTest
class HttpTailHarnessTests {

	private static final int CALLS = 200;

	private static final double RATE = 1000;

	private static final int MAX_IN_FLIGHT = 50;

	private static final double SLOW_RATE = 0.05;

	private static final Duration SLOW_DELAY = Duration.ofMillis(100);

	private static final Duration HEDGE_DELAY = Duration.ofMillis(20);

	@LocalServerPort
	private int port;

	@Autowired
	private SampleProperties properties;

	private HttpTailSample sample;

	private HttpTailHarness harness;

	@BeforeEach
	void connect() {
		this.sample = HttpTailSample.at(this.port);
		this.harness = new HttpTailHarness();
	}

	@AfterEach
	void disconnect() {
		this.harness.close();
		// Leaves the downstream as the other tests expect it: no tail.
		this.sample.resetWithTail(0, Duration.ZERO);
	}

	@Test
	void withoutHedgingTheDownstreamReceivesOneRequestPerCall() throws InterruptedException {
		HttpTailResult result = run(HttpTailVariant.none());
		assertThat(result.failures()).isEmpty();
		assertThat(result.requests()).isEqualTo(CALLS);
		assertThat(result.hedgesSent()).isZero();
		assertThat(result.retries()).isEmpty();
		assertSlowAnswersAreTheDrawnOnes(result);
	}

	@Test
	void oneHedgeAtMostPerCall() throws InterruptedException {
		assertHedgedWithin(run(HttpTailVariant.hedged(HEDGE_DELAY, 1)), 1);
	}

	@Test
	void twoHedgesAtMostPerCall() throws InterruptedException {
		assertHedgedWithin(run(HttpTailVariant.hedged(HEDGE_DELAY, 2)), 2);
	}

	@Test
	void theTableShowsEveryColumn() {
		HttpTailResult result = new HttpTailResult("hedging, maxHedges 1", 4, Map.of(),
				new long[] { 4_000_000, 1_000_000, 3_000_000, 2_000_000 }, 5, 1, 1, 1, 2, Map.of(),
				Duration.ofSeconds(1));
		assertThat(result.row())
			.isEqualTo("| hedging, maxHedges 1 | 2.0 | 4.0 | 4.0 | 4.0 | 25.00 % | 1 | 1 / 1 / 2 | 0 | 0 |");
		assertThat(HttpTailResult.HEADER.lines().findFirst().orElseThrow().split("\\|"))
			.hasSameSizeAs(result.row().split("\\|"));
	}

	private HttpTailResult run(HttpTailVariant variant) throws InterruptedException {
		return this.harness.run(this.sample, variant, CALLS, RATE, MAX_IN_FLIGHT, SLOW_RATE, SLOW_DELAY);
	}

	private void assertHedgedWithin(HttpTailResult result, int maxHedges) {
		assertThat(result.failures()).isEmpty();
		// Hedges and retries share the policy's 1 + maxHedges attempts.
		assertThat(result.requests()).isBetween((long) CALLS, (long) CALLS * (1 + maxHedges));
		// A copy cancelled before it was written never reaches the downstream.
		assertThat(result.requests()).isLessThanOrEqualTo(CALLS + result.hedgesSent() + result.retried());
		assertThat(result.hedgesWon()).isLessThanOrEqualTo(result.hedgesSent());
		// Paid when sent: the burst, and a twentieth of a hedge per call.
		assertThat(result.hedgesSent()).isLessThanOrEqualTo(HedgeTokens.BURST + (long) (CALLS * HedgeTokens.DEFAULT_MAX_EXTRA_LOAD));
		assertSlowAnswersAreTheDrawnOnes(result);
	}

	/** Each run resets the downstream, re-seeding its dice; each request it received took one draw. */
	private void assertSlowAnswersAreTheDrawnOnes(HttpTailResult result) {
		Random dice = new Random(this.properties.getDownstream().getSeed());
		long drawnSlow = 0;
		for (long i = 0; i < result.requests(); i++) {
			if (dice.nextDouble() < SLOW_RATE) {
				drawnSlow++;
			}
		}
		assertThat(result.slow()).isEqualTo(drawnSlow).isPositive();
	}

}
