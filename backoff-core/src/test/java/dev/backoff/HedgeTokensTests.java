package dev.backoff;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.offset;

/**
 * {@link HedgeTokens}: hedges paid when sent, at most {@code maxExtraLoad} of the calls plus the
 * burst; its validation; and that concurrent callers lose no token.
 */
class HedgeTokensTests {

	@Test
	void startsFullWithTheBurstAndHoldsBackTheHedgeAfterIt() {
		HedgeTokens tokens = new HedgeTokens(0.05);
		assertThat(tokens.getTokens()).isEqualTo(HedgeTokens.BURST);
		assertThat(tokens.getMaxExtraLoad()).isEqualTo(0.05);
		List<Boolean> sent = new ArrayList<>();
		for (int i = 0; i < HedgeTokens.BURST + 2; i++) {
			sent.add(tokens.tryHedge());
		}
		assertThat(sent.subList(0, HedgeTokens.BURST)).containsOnly(true);
		assertThat(sent.subList(HedgeTokens.BURST, sent.size())).containsExactly(false, false);
		assertThat(tokens.getTokens()).isZero();
		assertThat(tokens.heldBack()).isEqualTo(2);
	}

	@Test
	void twentyCallsAtFivePercentPayForOneHedge() {
		HedgeTokens tokens = emptied(new HedgeTokens(0.05));
		for (int i = 0; i < 19; i++) {
			tokens.onCall();
		}
		assertThat(tokens.getTokens()).isEqualTo(0.95);
		assertThat(tokens.tryHedge()).isFalse();
		tokens.onCall();
		assertThat(tokens.tryHedge()).isTrue();
		assertThat(tokens.getTokens()).isZero();
		// One held back while it was spent, one here.
		assertThat(tokens.heldBack()).isEqualTo(2);
	}

	@Test
	void whenEveryCallWantsAHedgeTheyAreTheShareOfCallsPlusTheBurst() {
		// A slowdown: every call's hedge timer fires.
		HedgeTokens tokens = new HedgeTokens(0.05);
		int hedges = 0;
		for (int call = 0; call < 10_000; call++) {
			tokens.onCall();
			if (tokens.tryHedge()) {
				hedges++;
			}
		}
		// The burst, and 0.05 for each call after the first (whose share found the bucket full):
		// 10 + 499.95 tokens, 509 whole ones.
		assertThat(hedges).isEqualTo(509);
		assertThat(tokens.heldBack()).isEqualTo(10_000 - hedges);
	}

	@Test
	void refillStopsAtTheBurst() {
		HedgeTokens tokens = new HedgeTokens(1);
		for (int i = 0; i < 100; i++) {
			tokens.onCall();
		}
		assertThat(tokens.getTokens()).isEqualTo(HedgeTokens.BURST);
	}

	@Test
	void resizeKeepsTheTokensAndTakesTheNewShare() {
		HedgeTokens tokens = emptied(new HedgeTokens(0.05));
		tokens.onCall();
		HedgeTokens resized = tokens.resize(0.5);
		assertThat(resized.getTokens()).isEqualTo(0.05);
		assertThat(resized.getMaxExtraLoad()).isEqualTo(0.5);
		resized.onCall();
		assertThat(resized.getTokens()).isEqualTo(0.55);
		assertThat(tokens.getTokens()).isEqualTo(0.05);
	}

	@Test
	void rejectsAShareOutsideItsRangeNamingTheSetting() {
		for (double invalid : new double[] { 0, 0.0004, -0.05, 4.5, Double.NaN }) {
			assertThatExceptionOfType(InvalidPolicyException.class).isThrownBy(() -> new HedgeTokens(invalid))
				.satisfies((ex) -> {
					assertThat(ex.getSetting()).isEqualTo("hedgeMaxExtraLoad");
					assertThat(ex.getRule()).isEqualTo(
							"must be at least 0.001 (tokens are kept to three decimals) and at most 4 (every call's most hedges)");
				});
		}
		assertThat(new HedgeTokens(0.001).getMaxExtraLoad()).isEqualTo(0.001);
		assertThat(new HedgeTokens(4).getMaxExtraLoad()).isEqualTo(4.0);
	}

	@Test
	void concurrentCallsAndHedgesLoseNoToken() throws InterruptedException {
		HedgeTokens tokens = emptied(new HedgeTokens(0.5));
		int threads = 4;
		int perThread = 10_000;
		AtomicInteger sent = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Thread worker = new Thread(() -> {
				try {
					start.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				for (int i = 0; i < perThread; i++) {
					tokens.onCall();
					if (tokens.tryHedge()) {
						sent.incrementAndGet();
					}
				}
			});
			worker.start();
			workers.add(worker);
		}
		start.countDown();
		for (Thread worker : workers) {
			worker.join();
		}
		// Every token added was either taken by a hedge or is still there (the refill never reaches
		// the burst here); every refusal counted, the one while emptying too.
		assertThat(sent.get() + tokens.getTokens()).isCloseTo(threads * perThread * 0.5, offset(1e-9));
		assertThat(sent.get() + tokens.heldBack()).isEqualTo(threads * perThread + 1);
	}

	/** @return the bucket with its burst spent, and one hedge held back */
	private static HedgeTokens emptied(HedgeTokens tokens) {
		while (tokens.tryHedge()) {
			// spends the burst
		}
		return tokens;
	}

}
