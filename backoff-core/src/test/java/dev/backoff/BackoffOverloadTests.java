package dev.backoff;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.RecordingListener.Failure;
import dev.backoff.RecordingListener.RetryAfterHint;
import dev.backoff.RecordingListener.RetryScheduled;
import dev.backoff.RecordingListener.Success;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Overload safety in the executor: the retry budget, server {@link RetryAfter} hints, and the
 * nested-retry guard. Waits are recorded, never slept.
 */
class BackoffOverloadTests {

	private final ManualNanoClock clock = new ManualNanoClock();

	private final RecordingSleeper sleeper = new RecordingSleeper(this.clock);

	private final RecordingListener listener = new RecordingListener();

	private final BackoffExecutor executor = BackoffExecutor.builder()
		.sleeper(this.sleeper)
		.clock(this.clock)
		.listener(this.listener)
		.build();

	// Budget

	@Test
	void aSpentBudgetEndsTheCallAsBudgetExhaustedWithTheOriginalException() {
		RetryBudget budget = RetryBudget.of(4, 0.5);
		BackoffPolicy policy = TestPolicies.doublingFrom100ms(5);
		IOException failure = new IOException("down");
		ScriptedTask<String> task = ScriptedTask.of(failure);
		// 4 tokens: the first failure leaves 3 (> 2, retry), the second leaves 2 (not > 2, stop).
		Throwable thrown = catchThrowable(() -> call(policy, budget, task.callable()));
		assertThat(thrown).isSameAs(failure);
		assertThat(task.calls()).isEqualTo(2);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.BUDGET_EXHAUSTED, 2, failure));
		assertThat(budget.getTokens()).isEqualTo(2.0);
	}

	@Test
	void onceSpentTheBudgetLetsEachLaterCallMakeOneAttempt() {
		RetryBudget budget = RetryBudget.of(10, 0.1);
		BackoffPolicy policy = TestPolicies.doublingFrom100ms(3);
		AtomicInteger attempts = new AtomicInteger();
		int calls = 100;
		for (int i = 0; i < calls; i++) {
			catchThrowable(() -> call(policy, budget, () -> {
				attempts.incrementAndGet();
				throw new IOException("down");
			}));
		}
		// The first call's 3 failures leave 7 tokens; the second call's first failure leaves 6
		// (retry), its second 5 (not more than half: stop); then one attempt per call: 3 + 2 + 98.
		assertThat(attempts.get()).isEqualTo(103);
		assertThat((double) attempts.get() / calls).isLessThanOrEqualTo(1.2);
	}

	@Test
	void successesRefillTheBudgetAndRetriesResume() throws Throwable {
		RetryBudget budget = RetryBudget.of(10, 0.1);
		BackoffPolicy policy = TestPolicies.doublingFrom100ms(3);
		for (int i = 0; i < 20; i++) {
			catchThrowable(() -> call(policy, budget, ScriptedTask.of(new IOException()).callable()));
		}
		assertThat(budget.getTokens()).isZero();
		int successes = 0;
		while (!budget.allowsRetries()) {
			call(policy, budget, () -> "ok");
			successes++;
		}
		// A failure must leave more than 5 tokens: 6.1 after 61 successes.
		assertThat(successes).isEqualTo(61);
		ScriptedTask<String> task = ScriptedTask.of(new IOException(), "ok");
		assertThat(call(policy, budget, task.callable())).isEqualTo("ok");
		assertThat(task.calls()).isEqualTo(2);
	}

	@Test
	void aNonRetryableFailureTakesNoToken() {
		RetryBudget budget = RetryBudget.of(10, 0.1);
		BackoffPolicy policy = TestPolicies.doublingFrom100ms(3)
			.toBuilder()
			.abortOn(IllegalArgumentException.class)
			.build();
		catchThrowable(() -> call(policy, budget, ScriptedTask.of(new IllegalArgumentException()).callable()));
		assertThat(budget.getTokens()).isEqualTo(10.0);
	}

	@Test
	void theAsyncPathDrawsOnTheBudgetToo() {
		ManualScheduler scheduler = new ManualScheduler(this.clock);
		RetryBudget budget = RetryBudget.of(4, 0.5);
		BackoffPolicy policy = TestPolicies.doublingFrom100ms(5);
		IOException failure = new IOException();
		CompletableFuture<String> result = this.executor.executeAsync(policy, budget, this.listener,
				() -> CompletableFuture.failedFuture(failure), scheduler);
		scheduler.runAll();
		assertThat(result).isCompletedExceptionally();
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.BUDGET_EXHAUSTED, 2, failure));
	}

	// Retry-After

	@Test
	void aHintLongerThanTheDelayIsWaitedInstead() throws Exception {
		ScriptedTask<String> task = ScriptedTask.of(new Throttled(Duration.ofSeconds(3)), "ok");
		BackoffPolicy policy = TestPolicies.doublingFrom100ms(3);
		assertThat(this.executor.call(policy, task.callable())).isEqualTo("ok");
		assertThat(this.sleeper.sleeps()).containsExactly(Duration.ofSeconds(3));
		assertThat(this.listener.delays()).containsExactly(Duration.ofSeconds(3));
	}

	@Test
	void aHintShorterThanTheDelayLeavesTheDelay() throws Exception {
		ScriptedTask<String> task = ScriptedTask.of(new Throttled(Duration.ofMillis(10)), "ok");
		this.executor.call(TestPolicies.doublingFrom100ms(3), task.callable());
		assertThat(this.sleeper.sleeps()).containsExactly(Duration.ofMillis(100));
		assertThat(this.listener.events()).noneMatch(RetryAfterHint.class::isInstance);
	}

	@Test
	void theListenerHearsWhichWaitsAServersHintSetJustBeforeTheRetryIsScheduled() throws Exception {
		Throttled first = new Throttled(Duration.ofSeconds(2));
		Throttled second = new Throttled(Duration.ofMillis(10));
		ScriptedTask<String> task = ScriptedTask.of(first, second, "ok");
		this.executor.call(TestPolicies.doublingFrom100ms(3), task.callable());
		// 2s is longer than the first 100ms; 10ms is shorter than the second 200ms.
		assertThat(this.listener.events()).containsExactly(new RetryAfterHint(1, Duration.ofSeconds(2)),
				new RetryScheduled(1, Duration.ofSeconds(2), first), new RetryScheduled(2, Duration.ofMillis(200), second),
				new Success(Outcome.SUCCESS_AFTER_RETRY, 3));
	}

	@Test
	void aHintIsFoundAlongTheCauseChain() throws Exception {
		ScriptedTask<String> task = ScriptedTask.of(new IllegalStateException(new Throttled(Duration.ofSeconds(2))),
				"ok");
		this.executor.call(TestPolicies.doublingFrom100ms(3), task.callable());
		assertThat(this.sleeper.sleeps()).containsExactly(Duration.ofSeconds(2));
	}

	@Test
	void aHintBeyondMaxRetryAfterEndsTheCallAtOnceAsTimedOut() {
		Throttled failure = new Throttled(Duration.ofSeconds(11));
		ScriptedTask<String> task = ScriptedTask.of(failure, "ok");
		// maxRetryAfter defaults to maxDelay: 10s here.
		Throwable thrown = catchThrowable(() -> this.executor.call(TestPolicies.doublingFrom100ms(3), task.callable()));
		assertThat(thrown).isSameAs(failure);
		assertThat(task.calls()).isEqualTo(1);
		assertThat(this.sleeper.sleeps()).isEmpty();
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.TIMED_OUT, 1, failure));
	}

	@Test
	void maxRetryAfterCanAllowHintsBeyondMaxDelay() throws Exception {
		BackoffPolicy policy = TestPolicies.doublingFrom100ms(3).toBuilder().maxRetryAfter(Duration.ofMinutes(2)).build();
		assertThat(policy.getMaxRetryAfter()).isEqualTo(Duration.ofMinutes(2));
		ScriptedTask<String> task = ScriptedTask.of(new Throttled(Duration.ofSeconds(90)), "ok");
		this.executor.call(policy, task.callable());
		assertThat(this.sleeper.sleeps()).containsExactly(Duration.ofSeconds(90));
	}

	@Test
	void aHintBeyondTheRemainingMaxElapsedEndsTheCallAtOnce() {
		BackoffPolicy policy = TestPolicies.doublingFrom100ms(3).toBuilder().maxElapsed(Duration.ofSeconds(5)).build();
		Throttled failure = new Throttled(Duration.ofSeconds(6));
		ScriptedTask<String> task = ScriptedTask.of(failure, "ok");
		assertThat(catchThrowable(() -> this.executor.call(policy, task.callable()))).isSameAs(failure);
		assertThat(this.sleeper.sleeps()).isEmpty();
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.TIMED_OUT, 1, failure));
	}

	@Test
	void aNegativeHintOrAHintSourceThatThrowsIsNoHint() throws Exception {
		BackoffPolicy negative = TestPolicies.doublingFrom100ms(3)
			.toBuilder()
			.retryAfter((failure) -> Duration.ofSeconds(-5))
			.build();
		this.executor.call(negative, ScriptedTask.of(new IOException(), "ok").callable());
		BackoffPolicy throwing = TestPolicies.doublingFrom100ms(3).toBuilder().retryAfter((failure) -> {
			throw new IllegalStateException("unreadable");
		}).build();
		this.executor.call(throwing, ScriptedTask.of(new IOException(), "ok").callable());
		assertThat(this.sleeper.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(100));
	}

	@Test
	void aHugeHintSaturatesInsteadOfOverflowing() {
		BackoffPolicy policy = TestPolicies.doublingFrom100ms(3).toBuilder().maxRetryAfter(BackoffPolicy.MAX_DURATION).build();
		Throttled failure = new Throttled(Duration.ofSeconds(Long.MAX_VALUE));
		ScriptedTask<String> task = ScriptedTask.of(failure, "ok");
		// Saturates to the longest wait, which max-retry-after allows; a real sleeper would wait.
		assertThat(catchThrowable(() -> this.executor.call(policy, task.callable()))).isNull();
		assertThat(this.sleeper.sleeps()).containsExactly(BackoffPolicy.MAX_DURATION);
	}

	@Test
	void aNegativeMaxRetryAfterIsRejected() {
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> BackoffPolicy.builder().maxRetryAfter(Duration.ofSeconds(-1)).build())
			.withMessage("maxRetryAfter was PT-1S, but must be zero or positive");
	}

	// Nesting

	@Test
	void threeNestedLevelsOfThreeAttemptsMakeThreeCallsNotTwentySeven() {
		AtomicInteger calls = new AtomicInteger();
		IOException failure = new IOException("down");
		BackoffPolicy policy = BackoffPolicy.builder().maxAttempts(3).baseDelay(Duration.ZERO).build();
		Throwable thrown = catchThrowable(() -> this.executor.call(policy,
				() -> this.executor.call(policy, () -> this.executor.call(policy, () -> {
					calls.incrementAndGet();
					throw failure;
				}))));
		assertThat(thrown).isSameAs(failure);
		assertThat(calls.get()).isEqualTo(3);
		assertThat(this.listener.ends()).filteredOn((end) -> ((Failure) end).outcome() == Outcome.NESTED).hasSize(6);
		assertThat(this.listener.ends()).filteredOn((end) -> ((Failure) end).outcome() == Outcome.EXHAUSTED).hasSize(1);
	}

	@Test
	void independentNestingRetriesAtEveryLevel() {
		BackoffExecutor independent = BackoffExecutor.builder().sleeper(this.sleeper).nested(Nested.INDEPENDENT).build();
		assertThat(independent.getNested()).isEqualTo(Nested.INDEPENDENT);
		AtomicInteger calls = new AtomicInteger();
		BackoffPolicy policy = BackoffPolicy.builder().maxAttempts(3).baseDelay(Duration.ZERO).build();
		catchThrowable(() -> independent.call(policy, () -> independent.call(policy, () -> independent.call(policy, () -> {
			calls.incrementAndGet();
			throw new IOException();
		}))));
		assertThat(calls.get()).isEqualTo(27);
	}

	@Test
	void aNestedCallRetriesAFailureTheEnclosingPolicyWouldNotRetry() throws Exception {
		BackoffPolicy outer = BackoffPolicy.builder().baseDelay(Duration.ZERO).retryOn(IOException.class).build();
		BackoffPolicy inner = BackoffPolicy.builder().baseDelay(Duration.ZERO).build();
		ScriptedTask<String> task = ScriptedTask.of(new IllegalStateException("conflict"), "ok");
		assertThat(this.executor.call(outer, () -> this.executor.call(inner, task.callable()))).isEqualTo("ok");
		assertThat(task.calls()).isEqualTo(2);
	}

	@Test
	void aCallInsideASingleAttemptPolicyIsNotNested() throws Exception {
		BackoffPolicy once = BackoffPolicy.builder().maxAttempts(1).build();
		BackoffPolicy inner = BackoffPolicy.builder().baseDelay(Duration.ZERO).build();
		ScriptedTask<String> task = ScriptedTask.of(new IOException(), "ok");
		assertThat(this.executor.call(once, () -> this.executor.call(inner, task.callable()))).isEqualTo("ok");
		assertThat(task.calls()).isEqualTo(2);
	}

	@Test
	void aNestedResultRetryStillRetriesWhereItHappens() throws Exception {
		BackoffPolicy outer = BackoffPolicy.builder().baseDelay(Duration.ZERO).build();
		BackoffPolicy inner = BackoffPolicy.builder()
			.baseDelay(Duration.ZERO)
			.retryIfResult("pending"::equals)
			.build();
		ScriptedTask<String> task = ScriptedTask.of("pending", "done");
		assertThat(this.executor.call(outer, () -> this.executor.call(inner, task.callable()))).isEqualTo("done");
		assertThat(task.calls()).isEqualTo(2);
	}

	@Test
	void theThreadIsNoLongerMarkedOnceTheOuterCallEnds() throws Exception {
		BackoffPolicy policy = BackoffPolicy.builder().baseDelay(Duration.ZERO).build();
		catchThrowable(() -> this.executor.call(policy, () -> {
			throw new IOException();
		}));
		this.executor.call(policy, () -> "ok");
		assertThat(this.executor.start(policy, null, BackoffListener.NONE, null).isNested()).isFalse();
		ScriptedTask<String> task = ScriptedTask.of(new IOException(), "ok");
		this.executor.call(policy, task.callable());
		assertThat(task.calls()).isEqualTo(2);
	}

	@Test
	void aCallStartedInsideAnAttemptKnowsItIsNested() throws Exception {
		BackoffPolicy policy = BackoffPolicy.builder().build();
		List<Boolean> nested = new java.util.ArrayList<>();
		this.executor.call(policy, () -> nested.add(this.executor.start(policy, null, BackoffListener.NONE, null).isNested()));
		nested.add(this.executor.start(policy, null, BackoffListener.NONE, policy).isNested());
		assertThat(nested).containsExactly(true, true);
	}

	@Test
	void anAsyncCallStartedInsideABlockingAttemptMakesOneAttempt() throws Exception {
		ManualScheduler scheduler = new ManualScheduler(this.clock);
		BackoffPolicy policy = BackoffPolicy.builder().baseDelay(Duration.ZERO).build();
		AtomicInteger attempts = new AtomicInteger();
		IOException failure = new IOException();
		CompletableFuture<@Nullable Object> inner = this.executor.call(policy,
				() -> this.executor.executeAsync(policy, () -> {
					attempts.incrementAndGet();
					return CompletableFuture.failedFuture(failure);
				}, scheduler));
		scheduler.runAll();
		assertThat(inner).isCompletedExceptionally();
		assertThat(attempts.get()).isEqualTo(1);
		assertThat(this.listener.ends()).contains(new Failure(Outcome.NESTED, 1, failure));
	}

	@Test
	void anAsyncRetryMarksTheSchedulerThreadForTheCallsItMakes() {
		ManualScheduler scheduler = new ManualScheduler(this.clock);
		BackoffPolicy policy = BackoffPolicy.builder().baseDelay(Duration.ZERO).build();
		AtomicInteger innerAttempts = new AtomicInteger();
		CompletableFuture<String> outer = this.executor.executeAsync(policy, () -> {
			catchThrowable(() -> this.executor.call(policy, () -> {
				innerAttempts.incrementAndGet();
				throw new IOException();
			}));
			return CompletableFuture.failedFuture(new IOException());
		}, scheduler);
		scheduler.runAll();
		assertThat(outer).isCompletedExceptionally();
		// Three outer attempts, each with one inner attempt that leaves its failure to the outer call.
		assertThat(innerAttempts.get()).isEqualTo(3);
		assertThat(this.listener.ends()).filteredOn((end) -> ((Failure) end).outcome() == Outcome.NESTED).hasSize(3);
	}

	/** A failure that carries a server's hint, as an HTTP 429 or 503 with Retry-After would. */
	static final class Throttled extends IOException implements RetryAfter {

		private final Duration retryAfter;

		Throttled(Duration retryAfter) {
			super("throttled");
			this.retryAfter = retryAfter;
		}

		@Override
		public Duration getRetryAfter() {
			return this.retryAfter;
		}

	}

	private <T> T call(BackoffPolicy policy, RetryBudget budget, Callable<T> callable) throws Throwable {
		return this.executor.execute(policy, budget, this.listener, callable::call);
	}

}
