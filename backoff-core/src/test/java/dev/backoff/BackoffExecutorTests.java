package dev.backoff;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import dev.backoff.RecordingListener.Failure;
import dev.backoff.RecordingListener.RetryScheduled;
import dev.backoff.RecordingListener.Success;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The blocking {@link BackoffExecutor}: attempts, outcomes, the failure the caller gets, result
 * predicates, {@code maxElapsed}, interruption and listener events. Waits are recorded by a
 * {@link RecordingSleeper} that advances a {@link ManualNanoClock}; nothing really sleeps.
 */
class BackoffExecutorTests {

	private static final long SEED = 42;

	private final ManualNanoClock clock = new ManualNanoClock();

	private final RecordingSleeper sleeper = new RecordingSleeper(this.clock);

	private final RecordingListener listener = new RecordingListener();

	private final BackoffExecutor executor = BackoffExecutor.builder()
		.sleeper(this.sleeper)
		.clock(this.clock)
		.randomSource(() -> new SplittableRandom(SEED))
		.listener(this.listener)
		.build();

	@Test
	void firstAttemptSuccessIsReportedAsSuccess() throws Exception {
		ScriptedTask<String> task = ScriptedTask.of("ok");
		assertThat(this.executor.call(policy(3), task.callable())).isEqualTo("ok");
		assertThat(task.calls()).isEqualTo(1);
		assertThat(this.sleeper.sleeps()).isEmpty();
		assertThat(this.listener.events()).containsExactly(new Success(Outcome.SUCCESS, 1));
	}

	@Test
	void successAfterFailuresReportsEveryRetryThenSuccessAfterRetry() throws Exception {
		IOException first = new IOException("first");
		IOException second = new IOException("second");
		ScriptedTask<String> task = ScriptedTask.of(first, second, "ok");
		assertThat(this.executor.call(policy(5), task.callable())).isEqualTo("ok");
		assertThat(this.listener.events()).containsExactly(new RetryScheduled(1, millis(100), first),
				new RetryScheduled(2, millis(200), second), new Success(Outcome.SUCCESS_AFTER_RETRY, 3));
		assertThat(this.sleeper.sleeps()).containsExactly(millis(100), millis(200));
	}

	@Test
	void exhaustsAfterMaxAttempts() {
		List<IOException> failures = failures(4);
		ScriptedTask<String> task = ScriptedTask.of(failures.toArray());
		Throwable thrown = catchThrowable(() -> this.executor.call(policy(4), task.callable()));
		assertThat(thrown).isSameAs(failures.get(3));
		assertThat(task.calls()).isEqualTo(4);
		assertThat(this.sleeper.sleeps()).containsExactly(millis(100), millis(200), millis(400));
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.EXHAUSTED, 4, failures.get(3)));
	}

	@Test
	void aSingleAttemptPolicyNeverRetries() {
		IOException failure = new IOException();
		ScriptedTask<String> task = ScriptedTask.of(failure);
		assertThat(catchThrowable(() -> this.executor.call(policy(1), task.callable()))).isSameAs(failure);
		assertThat(task.calls()).isEqualTo(1);
		assertThat(this.listener.events()).containsExactly(new Failure(Outcome.EXHAUSTED, 1, failure));
	}

	@Test
	void theLastFailureCarriesTheEarlierOnesAsSuppressed() {
		List<IOException> failures = failures(3);
		ScriptedTask<String> task = ScriptedTask.of(failures.toArray());
		Throwable thrown = catchThrowable(() -> this.executor.call(policy(3), task.callable()));
		assertThat(thrown).isSameAs(failures.get(2));
		assertThat(thrown.getSuppressed()).containsExactly(failures.get(0), failures.get(1));
	}

	@Test
	void callThrowsACheckedExceptionUnwrapped() {
		IOException failure = new IOException("disk");
		assertThatExceptionOfType(IOException.class)
			.isThrownBy(() -> this.executor.call(policy(2), ScriptedTask.<String>of(failure).callable()))
			.isSameAs(failure);
	}

	@Test
	void getThrowsTheOriginalRuntimeException() {
		IllegalStateException failure = new IllegalStateException("busy");
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.executor.get(policy(2), ScriptedTask.<String>of(failure).supplier()))
			.isSameAs(failure);
	}

	@Test
	void executeThrowsAnErrorAsItIsWithoutRetrying() {
		StackOverflowError failure = new StackOverflowError();
		ScriptedTask<String> task = ScriptedTask.of(failure);
		Throwable thrown = catchThrowable(() -> this.executor.execute(policy(3), null, this.listener, task));
		assertThat(thrown).isSameAs(failure);
		assertThat(task.calls()).isEqualTo(1);
		assertThat(this.listener.events()).containsExactly(new Failure(Outcome.NOT_RETRYABLE, 1, failure));
	}

	@Test
	void suppressedFailuresAreBoundedToTheFirstEight() {
		List<IOException> failures = failures(20);
		ScriptedTask<String> task = ScriptedTask.of(failures.toArray());
		Throwable thrown = catchThrowable(() -> this.executor.call(policy(20), task.callable()));
		assertThat(thrown).isSameAs(failures.get(19));
		assertThat(thrown.getSuppressed()).hasSize(BackoffCall.MAX_SUPPRESSED)
			.containsExactlyElementsOf(failures.subList(0, 8));
	}

	@Test
	void oneInstanceThrownOnEveryAttemptGetsNoSuppressed() {
		IOException failure = new IOException("same");
		ScriptedTask<String> task = ScriptedTask.of(failure);
		Throwable thrown = catchThrowable(() -> this.executor.call(policy(5), task.callable()));
		assertThat(thrown).isSameAs(failure);
		assertThat(thrown.getSuppressed()).isEmpty();
		assertThat(task.calls()).isEqualTo(5);
	}

	@Test
	void oneInstanceEndingEveryCallCollectsAtMostEightSuppressed() {
		IOException shared = new IOException("shared");
		for (int call = 0; call < 10; call++) {
			ScriptedTask<String> task = ScriptedTask.of(new IOException("a"), new IOException("b"), shared);
			assertThat(catchThrowable(() -> this.executor.call(policy(3), task.callable()))).isSameAs(shared);
		}
		assertThat(shared.getSuppressed()).hasSize(BackoffCall.MAX_SUPPRESSED);
	}

	@Test
	void aFailureThatIsNotRetryableStopsAtOnce() {
		IllegalArgumentException failure = new IllegalArgumentException("bad id");
		BackoffPolicy policy = policy(5).toBuilder().abortOn(IllegalArgumentException.class).build();
		ScriptedTask<String> task = ScriptedTask.of(failure, "never");
		assertThat(catchThrowable(() -> this.executor.call(policy, task.callable()))).isSameAs(failure);
		assertThat(task.calls()).isEqualTo(1);
		assertThat(this.sleeper.sleeps()).isEmpty();
		assertThat(this.listener.events()).containsExactly(new Failure(Outcome.NOT_RETRYABLE, 1, failure));
	}

	@Test
	void aFailureThatIsNotRetryableAfterARetryKeepsTheEarlierFailure() {
		IOException first = new IOException("first");
		IllegalArgumentException second = new IllegalArgumentException("bad id");
		BackoffPolicy policy = policy(5).toBuilder().abortOn(IllegalArgumentException.class).build();
		ScriptedTask<String> task = ScriptedTask.of(first, second, "never");
		Throwable thrown = catchThrowable(() -> this.executor.call(policy, task.callable()));
		assertThat(thrown).isSameAs(second);
		assertThat(thrown.getSuppressed()).containsExactly(first);
		assertThat(this.listener.events()).containsExactly(new RetryScheduled(1, millis(100), first),
				new Failure(Outcome.NOT_RETRYABLE, 2, second));
	}

	@Test
	void aResultPredicateRetriesUntilTheResultChanges() throws Exception {
		BackoffPolicy policy = policy(5).toBuilder().retryIfResult("NOT_READY"::equals).build();
		ScriptedTask<String> task = ScriptedTask.of("NOT_READY", "NOT_READY", "READY");
		assertThat(this.executor.call(policy, task.callable())).isEqualTo("READY");
		assertThat(this.listener.events()).containsExactly(new RetryScheduled(1, millis(100), null),
				new RetryScheduled(2, millis(200), null), new Success(Outcome.SUCCESS_AFTER_RETRY, 3));
	}

	@Test
	void aResultPredicateReturnsTheLastResultWhenAttemptsRunOut() throws Exception {
		BackoffPolicy policy = policy(3).toBuilder().retryIfResult((String result) -> result.startsWith("pending")).build();
		ScriptedTask<String> task = ScriptedTask.of("pending 1", "pending 2", "pending 3", "never");
		assertThat(this.executor.call(policy, task.callable())).isEqualTo("pending 3");
		assertThat(task.calls()).isEqualTo(3);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.EXHAUSTED, 3, null));
	}

	@Test
	void aResultPredicateCanMatchNull() throws Exception {
		BackoffPolicy policy = policy(3).toBuilder().retryIfResult(Objects::isNull).build();
		ScriptedTask<String> task = ScriptedTask.of(null, "value");
		assertThat(this.executor.call(policy, task.callable())).isEqualTo("value");
		assertThat(this.listener.ends()).containsExactly(new Success(Outcome.SUCCESS_AFTER_RETRY, 2));
	}

	@Test
	void aFailureAfterARetriedResultIsThrown() {
		IOException failure = new IOException();
		BackoffPolicy policy = policy(2).toBuilder().retryIfResult("NOT_READY"::equals).build();
		ScriptedTask<String> task = ScriptedTask.of("NOT_READY", failure);
		assertThat(catchThrowable(() -> this.executor.call(policy, task.callable()))).isSameAs(failure);
		assertThat(this.listener.events()).containsExactly(new RetryScheduled(1, millis(100), null),
				new Failure(Outcome.EXHAUSTED, 2, failure));
	}

	@Test
	void maxElapsedTimesOutWithoutStartingTheWaitThatWouldPassIt() {
		List<IOException> failures = failures(10);
		BackoffPolicy policy = policy(10).toBuilder().maxElapsed(Duration.ofSeconds(1)).build();
		ScriptedTask<String> task = ScriptedTask.of(failures.toArray());
		Throwable thrown = catchThrowable(() -> this.executor.call(policy, task.callable()));
		// 100 + 200 + 400 = 700ms waited; the next wait, 800ms, would end at 1.5s.
		assertThat(thrown).isSameAs(failures.get(3));
		assertThat(this.sleeper.sleeps()).containsExactly(millis(100), millis(200), millis(400));
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.TIMED_OUT, 4, failures.get(3)));
	}

	@Test
	void aWaitEndingExactlyAtMaxElapsedIsStarted() {
		IOException failure = new IOException();
		BackoffPolicy policy = policy(10).toBuilder().maxElapsed(millis(700)).build();
		catchThrowable(() -> this.executor.call(policy, ScriptedTask.of(failure).callable()));
		assertThat(this.sleeper.sleeps()).containsExactly(millis(100), millis(200), millis(400));
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.TIMED_OUT, 4, failure));
	}

	@Test
	void aWaitEndingOneNanosecondPastMaxElapsedIsNotStarted() {
		BackoffPolicy policy = policy(10).toBuilder().maxElapsed(millis(700).minusNanos(1)).build();
		catchThrowable(() -> this.executor.call(policy, ScriptedTask.of(new IOException()).callable()));
		assertThat(this.sleeper.sleeps()).containsExactly(millis(100), millis(200));
	}

	@Test
	void maxElapsedCountsTheTimeSpentInAttempts() {
		BackoffPolicy policy = policy(10).toBuilder().multiplier(1.0).maxElapsed(Duration.ofSeconds(1)).build();
		IOException failure = new IOException();
		ScriptedTask<String> script = ScriptedTask.of(failure);
		BackoffTask<String> slow = () -> {
			this.clock.advance(millis(300));
			return script.run();
		};
		catchThrowable(() -> this.executor.execute(policy, null, this.listener, slow));
		// Attempts end at 300, 700 and 1100ms: the third wait would start past the budget.
		assertThat(this.sleeper.sleeps()).containsExactly(millis(100), millis(100));
		assertThat(script.calls()).isEqualTo(3);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.TIMED_OUT, 3, failure));
	}

	@Test
	void maxElapsedReturnsTheLastResultOfAResultPredicate() throws Exception {
		BackoffPolicy policy = policy(10).toBuilder()
			.maxElapsed(millis(500))
			.retryIfResult((String result) -> result.startsWith("pending"))
			.build();
		ScriptedTask<String> task = ScriptedTask.of("pending 1", "pending 2", "pending 3", "never");
		// Waits 100 and 200ms; the next, 400ms, would end at 700ms.
		assertThat(this.executor.call(policy, task.callable())).isEqualTo("pending 3");
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.TIMED_OUT, 3, null));
	}

	@Test
	void anInterruptedWaitEndsTheCallWithTheOriginalFailureAndTheInterruptFlagSet() {
		IOException failure = new IOException("first");
		InterruptedException interruption = new InterruptedException("stop");
		BackoffExecutor executor = interruptingExecutor(interruption);
		ScriptedTask<String> task = ScriptedTask.of(failure, "never");
		Throwable thrown;
		boolean interrupted;
		try {
			thrown = catchThrowable(() -> executor.call(policy(5), task.callable()));
		}
		finally {
			// Clears the flag, so that it cannot leak into later tests.
			interrupted = Thread.interrupted();
		}
		assertThat(interrupted).isTrue();
		assertThat(thrown).isSameAs(failure);
		assertThat(thrown.getSuppressed()).containsExactly(interruption);
		assertThat(task.calls()).isEqualTo(1);
		assertThat(this.listener.events()).containsExactly(new RetryScheduled(1, millis(100), failure),
				new Failure(Outcome.INTERRUPTED, 1, failure));
	}

	@Test
	void anInterruptedWaitWhilePollingReturnsTheLastResult() throws Exception {
		BackoffExecutor executor = interruptingExecutor(new InterruptedException());
		BackoffPolicy policy = policy(5).toBuilder().retryIfResult("NOT_READY"::equals).build();
		ScriptedTask<String> task = ScriptedTask.of("NOT_READY", "READY");
		String result;
		boolean interrupted;
		try {
			result = executor.call(policy, task.callable());
		}
		finally {
			interrupted = Thread.interrupted();
		}
		assertThat(interrupted).isTrue();
		assertThat(result).isEqualTo("NOT_READY");
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.INTERRUPTED, 1, null));
	}

	@Test
	void anAttemptThrowingInterruptedExceptionIsNotRetried() {
		InterruptedException failure = new InterruptedException();
		ScriptedTask<String> task = ScriptedTask.of(failure, "never");
		Throwable thrown = catchThrowable(() -> this.executor.call(policy(5), task.callable()));
		assertThat(thrown).isSameAs(failure);
		assertThat(task.calls()).isEqualTo(1);
		assertThat(this.sleeper.sleeps()).isEmpty();
		assertThat(this.listener.events()).containsExactly(new Failure(Outcome.INTERRUPTED, 1, failure));
	}

	@Test
	void anAttemptThrowingInterruptedExceptionAfterARetryStopsThere() {
		IOException first = new IOException();
		InterruptedException second = new InterruptedException();
		ScriptedTask<String> task = ScriptedTask.of(first, second, "never");
		Throwable thrown = catchThrowable(() -> this.executor.call(policy(5), task.callable()));
		assertThat(thrown).isSameAs(second);
		assertThat(thrown.getSuppressed()).containsExactly(first);
		assertThat(task.calls()).isEqualTo(2);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.INTERRUPTED, 2, second));
	}

	@Test
	void recordedSleepsEqualTheListenersDelaysAndTheSeededSequence() {
		BackoffPolicy policy = BackoffPolicy.builder().jitter(Jitter.FULL).maxAttempts(6).build();
		catchThrowable(() -> this.executor.call(policy, ScriptedTask.of(new IOException()).callable()));
		List<Duration> expected = policy.getSchedule().delays(new SplittableRandom(SEED)).stream().toList();
		assertThat(this.sleeper.sleeps()).hasSize(5).isEqualTo(this.listener.delays()).isEqualTo(expected);
	}

	@Test
	void eachRetriedCallDrawsFromAGeneratorOfItsOwn() {
		AtomicInteger generators = new AtomicInteger();
		BackoffExecutor executor = BackoffExecutor.builder()
			.sleeper(this.sleeper)
			.randomSource(() -> new SplittableRandom(generators.incrementAndGet()))
			.build();
		for (int call = 0; call < 2; call++) {
			catchThrowable(() -> executor.call(policy(3), ScriptedTask.of(new IOException()).callable()));
		}
		assertThat(generators).hasValue(2);
	}

	@Test
	void aFirstAttemptSuccessNeedsNoGeneratorAndNoClock() throws Exception {
		BackoffExecutor executor = BackoffExecutor.builder()
			.sleeper(this.sleeper)
			.clock(() -> {
				throw new AssertionError("clock read");
			})
			.randomSource(() -> {
				throw new AssertionError("generator asked for");
			})
			.build();
		assertThat(executor.call(policy(3), () -> "ok")).isEqualTo("ok");
	}

	@Test
	void executeReportsToTheGivenListenerOnly() throws Throwable {
		RecordingListener other = new RecordingListener();
		this.executor.execute(policy(3), null, other, ScriptedTask.of(new IOException(), "ok"));
		assertThat(other.ends()).containsExactly(new Success(Outcome.SUCCESS_AFTER_RETRY, 2));
		assertThat(this.listener.events()).isEmpty();
	}

	@Test
	void theDefaultExecutorRetriesAZeroDelayWithoutAnyListener() {
		// Zero delays: Sleeper.THREAD returns at once (TimeUnit.sleep only sleeps a positive timeout).
		BackoffPolicy policy = BackoffPolicy.builder().baseDelay(Duration.ZERO).maxAttempts(3).build();
		ScriptedTask<String> task = ScriptedTask.of(new IllegalStateException(), new IllegalStateException(), "ok");
		assertThat(BackoffExecutor.builder().build().get(policy, task.supplier())).isEqualTo("ok");
		assertThat(task.calls()).isEqualTo(3);
	}

	@Test
	void builderRejectsNulls() {
		BackoffExecutor.Builder builder = BackoffExecutor.builder();
		assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> builder.sleeper(null))
			.withMessage("sleeper must not be null");
		assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> builder.clock(null))
			.withMessage("clock must not be null");
		assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> builder.randomSource(null))
			.withMessage("randomSource must not be null");
		assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> builder.listener(null))
			.withMessage("listener must not be null");
	}

	private BackoffExecutor interruptingExecutor(InterruptedException interruption) {
		return BackoffExecutor.builder()
			.sleeper((delay) -> {
				throw interruption;
			})
			.clock(this.clock)
			.listener(this.listener)
			.build();
	}

	private static BackoffPolicy policy(int maxAttempts) {
		return TestPolicies.doublingFrom100ms(maxAttempts);
	}

	private static List<IOException> failures(int count) {
		List<IOException> failures = new ArrayList<>();
		IntStream.rangeClosed(1, count).forEach((n) -> failures.add(new IOException("attempt " + n)));
		return failures;
	}

	private static Duration millis(long millis) {
		return Duration.ofMillis(millis);
	}

}
