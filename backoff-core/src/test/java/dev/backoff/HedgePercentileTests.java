package dev.backoff;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.backoff.RecordingListener.Failure;
import dev.backoff.RecordingListener.Success;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link Hedging#getPercentile()}: each round of a hedged call takes its hedge delay from the
 * method's {@link Latencies}, the fixed {@code hedgeDelay} while they are too few, and records
 * its answer time in them, from its first copy. Time is a {@link ManualNanoClock} that the
 * {@link ManualScheduler} advances as it runs each timer.
 */
class HedgePercentileTests {

	private static final Duration HEDGE_DELAY = Duration.ofMillis(50);

	private final ManualNanoClock clock = new ManualNanoClock();

	private final ManualScheduler scheduler = new ManualScheduler(this.clock);

	private final RecordingListener listener = new RecordingListener();

	private final BackoffExecutor executor = BackoffExecutor.builder().clock(this.clock).listener(this.listener).build();

	private final KeptLatencies latencies = new KeptLatencies();

	private final List<CompletableFuture<String>> copies = new ArrayList<>();

	@Test
	void eachCallWaitsThePercentileOfTheMethodsRecentAnswerTimesBeforeItsHedge() {
		this.latencies.percentile = Duration.ofMillis(80);
		CompletableFuture<String> future = execute(p95(3, 1));
		assertThat(this.latencies.asked).containsExactly(95.0);
		assertThat(this.scheduler.delays()).containsExactly(Duration.ofMillis(80));
		this.scheduler.runNext();
		this.clock.advance(Duration.ofMillis(20));
		this.copies.get(1).complete("hedge");
		assertThat(future).isCompletedWithValue("hedge");
		// From the first copy: the 80ms the hedge waited count, so that the slow answers that
		// hedges cut short still count as slow and the percentile does not drift down.
		assertThat(this.latencies.recorded).containsExactly(Duration.ofMillis(100));
	}

	@Test
	void whileTheAnswerTimesAreTooFewTheFixedHedgeDelayApplies() {
		this.latencies.percentile = null;
		CompletableFuture<String> future = execute(p95(3, 1));
		assertThat(this.scheduler.delays()).containsExactly(HEDGE_DELAY);
		this.clock.advance(Duration.ofMillis(30));
		this.copies.get(0).complete("first");
		assertThat(future).isCompletedWithValue("first");
		assertThat(this.latencies.recorded).containsExactly(Duration.ofMillis(30));
		assertThat(this.scheduler.pending()).isZero();
	}

	@Test
	void aRetryStartsARoundThatTakesThePercentileAgainAndIsTimedFromItsOwnFirstCopy() {
		this.latencies.percentile = Duration.ofMillis(80);
		CompletableFuture<String> future = execute(p95(3, 1));
		this.scheduler.runNext();
		this.copies.get(0).completeExceptionally(new IOException("first"));
		this.copies.get(1).completeExceptionally(new IOException("hedge"));
		// Failures are not answers: nothing is recorded, and the retry waits the policy's 100ms.
		assertThat(this.latencies.recorded).isEmpty();
		this.latencies.percentile = Duration.ofMillis(60);
		this.scheduler.runNext();
		assertThat(this.copies).hasSize(3);
		this.clock.advance(Duration.ofMillis(40));
		this.copies.get(2).complete("third");
		assertThat(future).isCompletedWithValue("third");
		assertThat(this.latencies.asked).containsExactly(95.0, 95.0);
		assertThat(this.latencies.recorded).containsExactly(Duration.ofMillis(40));
		assertThat(this.listener.ends()).containsExactly(new Success(Outcome.SUCCESS_AFTER_RETRY, 3));
	}

	@Test
	void aRetriedResultIsNotAnAnswer() {
		BackoffPolicy policy = p95(3, 1).toBuilder().retryIfResult("NOT_READY"::equals).build();
		this.latencies.percentile = Duration.ofMillis(80);
		CompletableFuture<String> future = execute(policy);
		this.copies.get(0).complete("NOT_READY");
		assertThat(this.latencies.recorded).isEmpty();
		this.scheduler.runNext();
		this.copies.get(1).complete("READY");
		assertThat(future).isCompletedWithValue("READY");
		assertThat(this.latencies.recorded).containsExactly(Duration.ZERO);
	}

	@Test
	void latenciesThatThrowChangeNothingButTheDelayWhichIsTheFixedOne() {
		Latencies broken = new Latencies() {
			@Override
			public Duration percentile(double percentile) {
				throw new IllegalStateException("broken");
			}

			@Override
			public void record(long nanos) {
				throw new IllegalStateException("broken");
			}
		};
		BackoffCall call = this.executor.start(p95(3, 1), null, this.listener, null);
		CompletableFuture<String> future = this.executor.executeAsync(call, broken, null, this::copy, this.scheduler);
		assertThat(this.scheduler.delays()).containsExactly(HEDGE_DELAY);
		this.copies.get(0).complete("first");
		assertThat(future).isCompletedWithValue("first");
		assertThat(this.listener.ends()).containsExactly(new Success(Outcome.SUCCESS, 1));
	}

	@Test
	void aPercentileWithoutLatenciesIsRefusedSayingWhatToDoAndTheCallEnds() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.executor.executeAsync(p95(3, 1), null, this.listener, this::copy, this.scheduler))
			.withMessage("hedgePercentile 95.0 takes the hedge delay from the method's recent answer times: start "
					+ "the call and pass its Latencies to executeAsync(call, latencies, hedgeTokens, task, scheduler), or leave "
					+ "hedgePercentile unset");
		assertThat(this.copies).isEmpty();
		assertThat(this.listener.ends()).singleElement()
			.isInstanceOfSatisfying(Failure.class, (end) -> assertThat(end.outcome()).isEqualTo(Outcome.NOT_RETRYABLE));
	}

	@Test
	void withoutHedgesThePercentileIsInertAndNeedsNoLatencies() {
		BackoffPolicy policy = p95(3, 0);
		CompletableFuture<String> future = this.executor.executeAsync(policy, null, this.listener, this::copy,
				this.scheduler);
		this.copies.get(0).complete("first");
		assertThat(future).isCompletedWithValue("first");
		assertThat(policy.getHedging().getPercentile()).isEqualTo(95.0);
	}

	@Test
	void invalidPercentilesAreRefusedNamingTheSettingAndTheRule() {
		for (double percentile : new double[] { 49.9, 100, Double.NaN, -1 }) {
			assertThatExceptionOfType(InvalidPolicyException.class)
				.isThrownBy(() -> BackoffPolicy.builder().hedgeDelay(HEDGE_DELAY).hedgePercentile(percentile).build())
				.withMessageContaining("hedgePercentile")
				.withMessageContaining("must be at least 50 and below 100");
		}
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> BackoffPolicy.builder().hedgePercentile(95.0).build())
			.withMessageContaining("hedgePercentile")
			.withMessageContaining("needs a hedgeDelay, the delay while the method's answers are too few to tell");
		BackoffPolicy policy = p95(3, 1);
		assertThat(policy.toBuilder().build().getHedging().getPercentile()).isEqualTo(95.0);
		assertThat(policy.toBuilder().hedgePercentile(null).build().getHedging().getPercentile()).isZero();
		assertThat(policy.toString()).contains("hedgeDelay=PT0.05S, maxHedges=1, hedgePercentile=95.0");
	}

	private static BackoffPolicy p95(int maxAttempts, int maxHedges) {
		return TestPolicies.doublingFrom100ms(maxAttempts)
			.toBuilder()
			.hedgeDelay(HEDGE_DELAY)
			.maxHedges(maxHedges)
			.hedgePercentile(95.0)
			.build();
	}

	private CompletableFuture<String> execute(BackoffPolicy policy) {
		BackoffCall call = this.executor.start(policy, null, this.listener, null);
		return this.executor.executeAsync(call, this.latencies, null, this::copy, this.scheduler);
	}

	private CompletableFuture<String> copy() {
		CompletableFuture<String> copy = new CompletableFuture<>();
		this.copies.add(copy);
		return copy;
	}

	/** Answers the percentile the test sets, and keeps what it was asked and told. */
	private static final class KeptLatencies implements Latencies {

		@Nullable Duration percentile;

		final List<Double> asked = new ArrayList<>();

		final List<Duration> recorded = new ArrayList<>();

		@Override
		public @Nullable Duration percentile(double percentile) {
			this.asked.add(percentile);
			return this.percentile;
		}

		@Override
		public void record(long nanos) {
			this.recorded.add(Duration.ofNanos(nanos));
		}

	}

}
