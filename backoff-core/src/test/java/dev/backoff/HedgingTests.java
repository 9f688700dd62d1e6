package dev.backoff;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.backoff.RecordingListener.Failure;
import dev.backoff.RecordingListener.Hedge;
import dev.backoff.RecordingListener.RetryScheduled;
import dev.backoff.RecordingListener.Success;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link Hedging}: the non-blocking executor sends another copy of a call when none has
 * answered within the hedge delay; a {@link ManualScheduler} holds every hedge timer and retry
 * wait, so that the test decides when time passes, and each copy is a future the test
 * completes.
 */
class HedgingTests {

	private static final Duration HEDGE_DELAY = Duration.ofMillis(50);

	private final ManualNanoClock clock = new ManualNanoClock();

	private final ManualScheduler scheduler = new ManualScheduler(this.clock);

	private final RecordingListener listener = new RecordingListener();

	private final BackoffExecutor executor = BackoffExecutor.builder()
		.sleeper((delay) -> {
			throw new AssertionError("The non-blocking executor must never sleep");
		})
		.clock(this.clock)
		.listener(this.listener)
		.build();

	/** Every copy's future, in the order sent. */
	private final List<CompletableFuture<String>> copies = new ArrayList<>();

	@Test
	void aCopyThatHasNotAnsweredWithinTheDelayIsHedgedAndTheFirstAnswerWinsTheOthersCancelled() {
		CompletableFuture<String> future = execute(hedged(4, 2), null);
		assertThat(this.copies).hasSize(1);
		assertThat(this.scheduler.delays()).containsExactly(HEDGE_DELAY);
		this.scheduler.runNext();
		assertThat(this.copies).hasSize(2);
		// The next hedge is timed from the last copy sent.
		assertThat(this.scheduler.delays()).containsExactly(HEDGE_DELAY, HEDGE_DELAY);
		this.copies.get(1).complete("second");
		assertThat(future).isCompletedWithValue("second");
		assertThat(this.copies.get(0)).isCancelled();
		assertThat(this.listener.events()).containsExactly(new Hedge(HedgeEvent.SENT, 2), new Hedge(HedgeEvent.WON, 2),
				new Hedge(HedgeEvent.CANCELLED, 1), new Success(Outcome.SUCCESS, 2));
		assertThat(this.scheduler.pending()).isZero();
	}

	@Test
	void theFirstCopyAnsweringInTimeSendsNoHedge() {
		CompletableFuture<String> future = execute(hedged(4, 2), null);
		this.copies.get(0).complete("first");
		assertThat(future).isCompletedWithValue("first");
		assertThat(this.copies).hasSize(1);
		assertThat(this.scheduler.pending()).isZero();
		assertThat(this.listener.events()).containsExactly(new Success(Outcome.SUCCESS, 1));
	}

	@Test
	void hedgesStopAtMaxHedges() {
		CompletableFuture<String> future = execute(hedged(10, 2), null);
		this.scheduler.runNext();
		this.scheduler.runNext();
		assertThat(this.copies).hasSize(3);
		assertThat(this.scheduler.pending()).isZero();
		this.copies.get(0).complete("first");
		assertThat(future).isCompletedWithValue("first");
		assertThat(this.copies.get(1)).isCancelled();
		assertThat(this.copies.get(2)).isCancelled();
		assertThat(this.listener.ends()).containsExactly(new Success(Outcome.SUCCESS, 3));
	}

	@Test
	void aCopyThatFailsWithARetryableFailureWhileAnotherRunsEndsNothingButTakesItsToken() {
		RetryBudget budget = RetryBudget.of(10, 0.1);
		CompletableFuture<String> future = execute(hedged(4, 1), budget);
		this.scheduler.runNext();
		IOException failure = new IOException("reset");
		this.copies.get(0).completeExceptionally(failure);
		assertThat(future).isNotDone();
		assertThat(budget.getTokens()).isEqualTo(9.0);
		this.copies.get(1).complete("second");
		assertThat(future).isCompletedWithValue("second");
		assertThat(this.listener.events()).containsExactly(new Hedge(HedgeEvent.SENT, 2),
				new Hedge(HedgeEvent.FAILED, 1), new Hedge(HedgeEvent.WON, 2), new Success(Outcome.SUCCESS, 2));
		assertThat(budget.getTokens()).isEqualTo(9.1);
	}

	@Test
	void aCopyThatFailsWhileAnotherRunsIsReportedWithItsFailureAndOneWhoseResultAsksForARetryAsFailed() {
		List<String> failed = new ArrayList<>();
		BackoffListener copies = new BackoffListener() {

			@Override
			public void onHedge(HedgeEvent event, int attempt, @Nullable Throwable failure) {
				if (event == HedgeEvent.FAILED) {
					failed.add(attempt + " " + ((failure != null) ? failure.getMessage() : "result"));
				}
			}

		};
		BackoffPolicy policy = hedged(4, 2).toBuilder().retryIfResult("again"::equals).build();
		CompletableFuture<String> future = this.executor.executeAsync(policy, null,
				BackoffListener.composite(List.of(copies, this.listener)), this::copy, this.scheduler);
		this.scheduler.runNext();
		this.copies.get(1).completeExceptionally(new IOException("reset"));
		this.copies.get(0).complete("again");
		assertThat(failed).containsExactly("2 reset", "1 result");
		this.copies.get(2).complete("third");
		assertThat(future).isCompletedWithValue("third");
		// Listeners that know only onHedge(event, attempt) hear of both.
		assertThat(this.listener.events()).containsExactly(new Hedge(HedgeEvent.SENT, 2),
				new Hedge(HedgeEvent.FAILED, 2), new Hedge(HedgeEvent.SENT, 3), new Hedge(HedgeEvent.FAILED, 1),
				new Hedge(HedgeEvent.WON, 3), new Success(Outcome.SUCCESS, 3));
	}

	@Test
	void aCopyThatFailsRetryablyWhileAnotherRunsSendsTheNextHedgeAtOnce() {
		CompletableFuture<String> future = execute(hedged(4, 2), null);
		this.scheduler.runNext();
		this.copies.get(1).completeExceptionally(new IOException("reset"));
		assertThat(this.copies).hasSize(3);
		this.copies.get(2).complete("third");
		assertThat(future).isCompletedWithValue("third");
		assertThat(this.copies.get(0)).isCancelled();
		assertThat(this.listener.events()).containsExactly(new Hedge(HedgeEvent.SENT, 2),
				new Hedge(HedgeEvent.FAILED, 2), new Hedge(HedgeEvent.SENT, 3), new Hedge(HedgeEvent.WON, 3),
				new Hedge(HedgeEvent.CANCELLED, 1), new Success(Outcome.SUCCESS, 3));
	}

	@Test
	void aNonRetryableFailureEndsTheCallAtOnceAndCancelsTheOtherCopies() {
		BackoffPolicy policy = hedged(4, 1).toBuilder().abortOn(IllegalArgumentException.class).build();
		CompletableFuture<String> future = execute(policy, null);
		this.scheduler.runNext();
		IllegalArgumentException failure = new IllegalArgumentException("no such quote");
		this.copies.get(0).completeExceptionally(failure);
		assertThat(failureOf(future)).isSameAs(failure);
		assertThat(this.copies.get(1)).isCancelled();
		assertThat(this.listener.events()).containsExactly(new Hedge(HedgeEvent.SENT, 2),
				new Hedge(HedgeEvent.CANCELLED, 2), new Failure(Outcome.NOT_RETRYABLE, 2, failure));
	}

	@Test
	void whenEveryCopyHasFailedTheCallRetriesAfterItsWaitAndHedgesCountAsAttempts() {
		CompletableFuture<String> future = execute(hedged(4, 1), null);
		this.scheduler.runNext();
		IOException first = new IOException("first");
		IOException second = new IOException("second");
		this.copies.get(0).completeExceptionally(first);
		this.copies.get(1).completeExceptionally(second);
		// Two attempts made: the wait before the third is the policy's second.
		assertThat(this.listener.events()).endsWith(new RetryScheduled(2, Duration.ofMillis(100), second));
		this.scheduler.runNext();
		assertThat(this.copies).hasSize(3);
		// The one hedge allowed is spent: no timer beside the retry.
		assertThat(this.scheduler.pending()).isZero();
		this.copies.get(2).complete("third");
		assertThat(future).isCompletedWithValue("third");
		assertThat(this.listener.ends()).containsExactly(new Success(Outcome.SUCCESS_AFTER_RETRY, 3));
	}

	@Test
	void hedgesStopAtMaxAttemptsAndTheLastFailureEndsTheCallExhausted() {
		CompletableFuture<String> future = execute(hedged(2, 3), null);
		this.scheduler.runNext();
		assertThat(this.copies).hasSize(2);
		// Two attempts in flight, two allowed: the next timer sends nothing.
		this.scheduler.runNext();
		assertThat(this.copies).hasSize(2);
		IOException first = new IOException("first");
		IOException second = new IOException("second");
		this.copies.get(1).completeExceptionally(second);
		this.copies.get(0).completeExceptionally(first);
		assertThat(failureOf(future)).isSameAs(first);
		assertThat(first.getSuppressed()).containsExactly(second);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.EXHAUSTED, 2, first));
	}

	@Test
	void noHedgeIsSentWhileTheBudgetRefusesRetries() {
		RetryBudget budget = RetryBudget.of(4, 0.1);
		budget.onFailure();
		budget.onFailure();
		assertThat(budget.allowsRetries()).isFalse();
		CompletableFuture<String> future = execute(hedged(4, 2), budget);
		this.scheduler.runNext();
		assertThat(this.copies).hasSize(1);
		this.copies.get(0).complete("first");
		assertThat(future).isCompletedWithValue("first");
		assertThat(this.listener.events()).containsExactly(new Success(Outcome.SUCCESS, 1));
	}

	@Test
	void aCallNestedInAnotherRetryingCallsAttemptSendsNoHedges() throws Throwable {
		CompletableFuture<String> inner = this.executor.execute(TestPolicies.doublingFrom100ms(3), null,
				BackoffListener.NONE, () -> execute(hedged(4, 2), null));
		assertThat(this.scheduler.pending()).isZero();
		this.copies.get(0).complete("only");
		assertThat(inner).isCompletedWithValue("only");
	}

	@Test
	void cancellingTheCallCancelsEveryCopyAndTheNextHedge() {
		CompletableFuture<String> future = execute(hedged(4, 2), null);
		this.scheduler.runNext();
		assertThat(future.cancel(true)).isTrue();
		assertThat(this.copies).allSatisfy((copy) -> assertThat(copy).isCancelled());
		assertThat(this.scheduler.pending()).isZero();
		assertThat(this.listener.ends()).singleElement()
			.isInstanceOfSatisfying(Failure.class, (end) -> assertThat(end.outcome()).isEqualTo(Outcome.INTERRUPTED));
	}

	@Test
	void copiesAnsweringTogetherOnOtherThreadsEndTheCallOnce() throws Exception {
		for (int round = 0; round < 200; round++) {
			this.copies.clear();
			RecordingListener listener = new RecordingListener();
			CompletableFuture<String> future = this.executor.executeAsync(hedged(4, 1), null, listener, this::copy,
					this.scheduler);
			this.scheduler.runNext();
			CountDownLatch start = new CountDownLatch(1);
			List<Thread> threads = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				CompletableFuture<String> copy = this.copies.get(i);
				String answer = "copy " + (i + 1);
				Thread thread = new Thread(() -> {
					awaitQuietly(start);
					copy.complete(answer);
				});
				thread.start();
				threads.add(thread);
			}
			start.countDown();
			for (Thread thread : threads) {
				thread.join();
			}
			assertThat(future.get(5, TimeUnit.SECONDS)).isIn("copy 1", "copy 2");
			assertThat(listener.ends()).containsExactly(new Success(Outcome.SUCCESS, 2));
		}
	}

	@Test
	void aCopyStillRunningAfterTheAttemptTimeoutFailsWithATimeoutAndTheOthersGoOn() {
		BackoffPolicy policy = hedged(4, 1).toBuilder().attemptTimeout(Duration.ofMillis(200)).build();
		CompletableFuture<String> future = execute(policy, null);
		// The hedge timer, then the first copy's timeout.
		assertThat(this.scheduler.delays()).containsExactly(HEDGE_DELAY, Duration.ofMillis(200));
		this.scheduler.runNext();
		this.scheduler.runNext();
		assertThat(failureOf(this.copies.get(0))).isInstanceOf(TimeoutException.class)
			.hasMessage("attempt 1 did not complete within 200ms");
		assertThat(future).isNotDone();
		this.copies.get(1).complete("second");
		assertThat(future).isCompletedWithValue("second");
		assertThat(this.listener.events()).containsExactly(new Hedge(HedgeEvent.SENT, 2),
				new Hedge(HedgeEvent.FAILED, 1), new Hedge(HedgeEvent.WON, 2), new Success(Outcome.SUCCESS, 2));
		// The second copy's timer went with it.
		assertThat(this.scheduler.pending()).isZero();
	}

	@Test
	void aBlockingCallRefusesHedging() {
		BackoffTask<String> task = () -> "never";
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.executor.execute(hedged(3, 1), null, this.listener, task))
			.withMessageStartingWith("A blocking call cannot send hedges (maxHedges 1)")
			.withMessageContaining("executeAsync");
	}

	@Test
	void invalidHedgingSettingsAreRefusedNamingTheSetting() {
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> BackoffPolicy.builder().hedgeDelay(HEDGE_DELAY).maxHedges(5).build())
			.withMessageContaining("maxHedges")
			.withMessageContaining("must be between 0 and 4");
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> BackoffPolicy.builder().maxHedges(1).build())
			.withMessageContaining("hedgeDelay")
			.withMessageContaining("must be set when maxHedges is above 0");
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> BackoffPolicy.builder().hedgeDelay(Duration.ZERO).build())
			.withMessageContaining("must be positive");
		assertThat(BackoffPolicy.defaults().getHedging().isEnabled()).isFalse();
		assertThat(hedged(3, 2).toBuilder().build().getHedging().getMaxHedges()).isEqualTo(2);
	}

	private static BackoffPolicy hedged(int maxAttempts, int maxHedges) {
		return TestPolicies.doublingFrom100ms(maxAttempts).toBuilder().hedgeDelay(HEDGE_DELAY).maxHedges(maxHedges).build();
	}

	private CompletableFuture<String> execute(BackoffPolicy policy, RetryBudget budget) {
		return this.executor.executeAsync(policy, budget, this.listener, this::copy, this.scheduler);
	}

	private CompletableFuture<String> copy() {
		CompletableFuture<String> copy = new CompletableFuture<>();
		this.copies.add(copy);
		return copy;
	}

	private static Throwable failureOf(CompletableFuture<?> future) {
		assertThat(future).isCompletedExceptionally();
		try {
			future.get();
			throw new AssertionError("not failed");
		}
		catch (ExecutionException ex) {
			return ex.getCause();
		}
		catch (InterruptedException ex) {
			throw new AssertionError(ex);
		}
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
