package dev.backoff;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.backoff.RecordingListener.Hedge;
import dev.backoff.RecordingListener.Success;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hedges paid when sent ({@link HedgeTokens}): a slowdown, which puts every call past its hedge
 * delay, can no longer make every call hedge. As {@link HedgingTests}: a {@link ManualScheduler}
 * holds every hedge timer, and each copy is a future the test completes.
 */
class HedgeCapTests {

	private static final Duration HEDGE_DELAY = Duration.ofMillis(50);

	private final ManualNanoClock clock = new ManualNanoClock();

	private final ManualScheduler scheduler = new ManualScheduler(this.clock);

	private final RecordingListener listener = new RecordingListener();

	private final BackoffExecutor executor = BackoffExecutor.builder().clock(this.clock).build();

	private final List<CompletableFuture<String>> copies = new ArrayList<>();

	@Test
	void aSlowdownCanNoLongerMakeEveryCallHedge() {
		HedgeTokens tokens = new HedgeTokens(HedgeTokens.DEFAULT_MAX_EXTRA_LOAD);
		int calls = 1000;
		for (int i = 0; i < calls; i++) {
			CompletableFuture<String> call = execute(hedged(3, 1), tokens);
			// Slower than the hedge delay, every one: its hedge timer fires first.
			this.scheduler.runNext();
			this.copies.get(this.copies.size() - 1).complete("slow");
			assertThat(call).isCompletedWithValue("slow");
		}
		assertThat(this.scheduler.pending()).isZero();
		// The burst, then one hedge per 20 calls: 10 + 0.05 × 999 (the first call's share found the
		// bucket full). Without the bucket, each of the 1000 calls sent its hedge.
		assertThat(count(HedgeEvent.SENT)).isEqualTo(59);
		assertThat(count(HedgeEvent.HELD_BACK)).isEqualTo(calls - 59);
		assertThat(tokens.heldBack()).isEqualTo(calls - 59);
		assertThat(this.copies).hasSize(calls + 59);
	}

	@Test
	void withoutTheBucketTheSameSlowdownMakesEveryCallHedge() {
		// What the cap replaces: hedges cost nothing while the copies succeed.
		for (int i = 0; i < 100; i++) {
			execute(hedged(3, 1), null);
			this.scheduler.runNext();
			this.copies.get(this.copies.size() - 1).complete("slow");
		}
		assertThat(count(HedgeEvent.SENT)).isEqualTo(100);
		assertThat(count(HedgeEvent.HELD_BACK)).isZero();
	}

	@Test
	void aHedgeHeldBackLeavesTheCallWaitingForItsCopyAsWithoutHedging() {
		HedgeTokens tokens = spent(new HedgeTokens(0.05));
		CompletableFuture<String> call = execute(hedged(3, 2), tokens);
		assertThat(this.scheduler.delays()).containsExactly(HEDGE_DELAY);
		this.scheduler.runNext();
		// No copy, and no later hedge timer: the call waits for the one it has.
		assertThat(this.copies).hasSize(1);
		assertThat(this.scheduler.pending()).isZero();
		assertThat(call).isNotDone();
		this.copies.get(0).complete("first");
		assertThat(call).isCompletedWithValue("first");
		assertThat(this.listener.events()).containsExactly(new Hedge(HedgeEvent.HELD_BACK, 2),
				new Success(Outcome.SUCCESS, 1));
	}

	@Test
	void aCopyThatFailsWhileAnotherRunsSendsNoHedgeWhenTheTokensAreSpent() {
		HedgeTokens tokens = new HedgeTokens(0.05);
		while (tokens.getTokens() >= 2) {
			tokens.tryHedge();
		}
		CompletableFuture<String> call = execute(hedged(4, 2), tokens);
		this.scheduler.runNext();
		assertThat(this.copies).hasSize(2);
		this.copies.get(1).completeExceptionally(new IOException("reset"));
		// The failed hedge's place would go to the next at once; the bucket holds it back.
		assertThat(this.copies).hasSize(2);
		this.copies.get(0).complete("first");
		assertThat(call).isCompletedWithValue("first");
		assertThat(this.listener.events()).containsExactly(new Hedge(HedgeEvent.SENT, 2),
				new Hedge(HedgeEvent.FAILED, 2), new Hedge(HedgeEvent.HELD_BACK, 3), new Success(Outcome.SUCCESS, 2));
	}

	@Test
	void callsRefillTheBucketAndAHedgeGoesAgainOnceOneIsPaidFor() {
		HedgeTokens tokens = spent(new HedgeTokens(0.05));
		for (int i = 0; i < 19; i++) {
			execute(hedged(3, 1), tokens);
			this.copies.get(this.copies.size() - 1).complete("fast");
		}
		assertThat(tokens.getTokens()).isEqualTo(0.95);
		execute(hedged(3, 1), tokens);
		this.scheduler.runNext();
		assertThat(count(HedgeEvent.SENT)).isOne();
		assertThat(tokens.getTokens()).isZero();
	}

	@Test
	void aCallThatSendsNoHedgesAddsNothing() throws Throwable {
		HedgeTokens tokens = spent(new HedgeTokens(0.05));
		// Nested in another retrying call's attempt: it sends no hedges, so it pays for none.
		CompletableFuture<String> inner = this.executor.execute(TestPolicies.doublingFrom100ms(3), null,
				BackoffListener.NONE, () -> execute(hedged(3, 1), tokens));
		this.copies.get(0).complete("only");
		assertThat(inner).isCompletedWithValue("only");
		assertThat(tokens.getTokens()).isZero();
	}

	private long count(HedgeEvent event) {
		return this.listener.events().stream().filter((e) -> e instanceof Hedge hedge && hedge.event() == event).count();
	}

	private static HedgeTokens spent(HedgeTokens tokens) {
		while (tokens.tryHedge()) {
			// spends the burst
		}
		return tokens;
	}

	private static BackoffPolicy hedged(int maxAttempts, int maxHedges) {
		return TestPolicies.doublingFrom100ms(maxAttempts).toBuilder().hedgeDelay(HEDGE_DELAY).maxHedges(maxHedges).build();
	}

	private CompletableFuture<String> execute(BackoffPolicy policy, @Nullable HedgeTokens tokens) {
		return this.executor.executeAsync(this.executor.start(policy, null, this.listener, null), null, tokens,
				this::copy, this.scheduler);
	}

	private CompletableFuture<String> copy() {
		CompletableFuture<String> copy = new CompletableFuture<>();
		this.copies.add(copy);
		return copy;
	}

}
