package dev.backoff;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.OverloadControlsTests.Throttled;
import dev.backoff.RecordingListener.Failure;
import dev.backoff.RecordingListener.Success;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A retry's wait for its slot at the {@link Pacing pace} is bounded by the policy's
 * {@code maxElapsed}, as its backoff wait is: a retry whose slot lies past what the call has left
 * is not sent and takes no slot, and the call ends {@code timed_out} with the last attempt's own
 * failure (or result), blocking, {@code CompletionStage} and hedged alike. Each call here: its
 * first attempt goes at once and is throttled; the pace, woken before the call by another's
 * throttling answer, allows its slowest rate, so the retry's slot is one interval after the first
 * attempt's. Virtual time: the sleeper and the scheduler advance the clock.
 */
class PacedRetryTests {

	private static final Duration BACKOFF = Duration.ofMillis(100);

	private final ManualNanoClock clock = new ManualNanoClock();

	private final RecordingSleeper sleeper = new RecordingSleeper(this.clock);

	private final RecordingListener listener = new RecordingListener();

	private final ManualScheduler scheduler = new ManualScheduler(this.clock);

	private final BackoffExecutor executor = BackoffExecutor.builder()
		.sleeper(this.sleeper)
		.clock(this.clock)
		.listener(this.listener)
		.build();

	private final long start = this.clock.nanoTime();

	private final Pacing pacing = new Pacing(this.clock);

	private final OverloadControls controls = new OverloadControls(null, true, this.pacing);

	/** The pace's interval between slots, once woken. */
	private final long interval;

	private final Throttled throttled = new Throttled();

	PacedRetryTests() {
		this.pacing.onThrottled();
		this.interval = (long) (1e9 / this.pacing.rate());
	}

	@Test
	void aBlockingRetryWhoseSlotIsPastMaxElapsedIsNotSentAndTheCallerGetsTheOriginalFailure() {
		BackoffPolicy policy = policy(this.interval / 2);
		ScriptedTask<String> task = ScriptedTask.of(this.throttled, "ok");
		Throwable thrown = catchThrowable(() -> this.controls.execute(this.executor, policy, null, this.listener, task));
		assertThat(thrown).isSameAs(this.throttled);
		assertThat(thrown.getSuppressed()).isEmpty();
		assertThat(task.calls()).isEqualTo(1);
		// The retry was scheduled and its backoff waited; its slot was refused, not waited for.
		assertThat(this.listener.delays()).containsExactly(BACKOFF);
		assertThat(this.sleeper.sleeps()).containsExactly(BACKOFF);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.TIMED_OUT, 1, this.throttled));
		assertWithinMaxElapsed(policy);
		assertTheRetrysSlotIsFree();
	}

	@Test
	void aBlockingRetryWhoseSlotIsWithinMaxElapsedWaitsForItAndGoes() throws Throwable {
		BackoffPolicy policy = policy(2 * this.interval);
		ScriptedTask<String> task = ScriptedTask.of(this.throttled, "ok");
		assertThat(this.controls.execute(this.executor, policy, null, this.listener, task)).isEqualTo("ok");
		assertThat(task.calls()).isEqualTo(2);
		assertThat(this.sleeper.sleeps()).containsExactly(BACKOFF, Duration.ofNanos(this.interval).minus(BACKOFF));
		assertThat(this.listener.ends()).containsExactly(new Success(Outcome.SUCCESS_AFTER_RETRY, 2));
	}

	@Test
	void aBlockingRetryAskedByAResultWhoseSlotIsPastMaxElapsedReturnsTheLastResult() throws Throwable {
		BackoffPolicy policy = policy(this.interval / 2).toBuilder().retryIfResult("pending"::equals).build();
		// Another call's throttling woke the pace: this one's first answer is a result, not a throttle.
		ScriptedTask<String> task = ScriptedTask.of("pending", "ok");
		assertThat(this.controls.execute(this.executor, policy, null, this.listener, task)).isEqualTo("pending");
		assertThat(task.calls()).isEqualTo(1);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.TIMED_OUT, 1, null));
		assertWithinMaxElapsed(policy);
		assertTheRetrysSlotIsFree();
	}

	@Test
	void aNonBlockingRetryWhoseSlotIsPastMaxElapsedIsNotSentAndTheFutureFailsWithTheOriginalFailure() {
		BackoffPolicy policy = policy(this.interval / 2);
		AtomicInteger sent = new AtomicInteger();
		CompletableFuture<String> future = this.executor.executeAsync(start(policy), null, null,
				() -> throttledOnce(sent), this.scheduler);
		this.scheduler.runAll();
		assertThat(catchThrowable(future::join)).cause().isSameAs(this.throttled);
		assertThat(sent).hasValue(1);
		// Only the backoff's wait was scheduled, none for the pace.
		assertThat(this.scheduler.delays()).containsExactly(BACKOFF);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.TIMED_OUT, 1, this.throttled));
		assertWithinMaxElapsed(policy);
		assertTheRetrysSlotIsFree();
	}

	@Test
	void aNonBlockingRetryAskedByAResultWhoseSlotIsPastMaxElapsedCompletesWithTheLastResult() {
		BackoffPolicy policy = policy(this.interval / 2).toBuilder().retryIfResult("pending"::equals).build();
		AtomicInteger sent = new AtomicInteger();
		CompletableFuture<String> future = this.executor.executeAsync(start(policy), null, null,
				() -> CompletableFuture.completedFuture((sent.incrementAndGet() < 2) ? "pending" : "ok"), this.scheduler);
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("pending");
		assertThat(sent).hasValue(1);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.TIMED_OUT, 1, null));
		assertWithinMaxElapsed(policy);
	}

	@Test
	void aNonBlockingRetryWhoseSlotIsWithinMaxElapsedWaitsForItOnTheSchedulerAndGoes() {
		BackoffPolicy policy = policy(2 * this.interval);
		AtomicInteger sent = new AtomicInteger();
		CompletableFuture<String> future = this.executor.executeAsync(start(policy), null, null,
				() -> throttledOnce(sent), this.scheduler);
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("ok");
		assertThat(sent).hasValue(2);
		assertThat(this.scheduler.delays()).containsExactly(BACKOFF, Duration.ofNanos(this.interval).minus(BACKOFF));
	}

	@Test
	void aHedgedCallsRetryWhoseSlotIsPastMaxElapsedIsNotSentAndTheFutureFailsWithTheOriginalFailure() {
		BackoffPolicy policy = hedged(policy(this.interval / 2));
		AtomicInteger sent = new AtomicInteger();
		CompletableFuture<String> future = this.executor.executeAsync(start(policy), null, null,
				() -> throttledOnce(sent), this.scheduler);
		this.scheduler.runAll();
		assertThat(catchThrowable(future::join)).cause().isSameAs(this.throttled);
		assertThat(sent).hasValue(1);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.TIMED_OUT, 1, this.throttled));
		assertWithinMaxElapsed(policy);
		assertTheRetrysSlotIsFree();
	}

	@Test
	void aHedgedCallsRetryWhoseSlotIsWithinMaxElapsedWaitsForItAndGoes() {
		BackoffPolicy policy = hedged(policy(2 * this.interval));
		AtomicInteger sent = new AtomicInteger();
		CompletableFuture<String> future = this.executor.executeAsync(start(policy), null, null,
				() -> throttledOnce(sent), this.scheduler);
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("ok");
		assertThat(sent).hasValue(2);
		assertThat(this.listener.ends()).containsExactly(new Success(Outcome.SUCCESS_AFTER_RETRY, 2));
	}

	private BackoffPolicy policy(long maxElapsedNanos) {
		return BackoffPolicy.builder()
			.baseDelay(BACKOFF)
			.jitter(Jitter.NONE)
			.maxAttempts(3)
			.throttleOn(Throttled.class)
			.maxElapsed(Duration.ofNanos(maxElapsedNanos))
			.build();
	}

	/** A hedge due 50 ms after each round's first copy: the active pace holds it back. */
	private static BackoffPolicy hedged(BackoffPolicy policy) {
		return policy.toBuilder().hedgeDelay(Duration.ofMillis(50)).maxHedges(1).build();
	}

	private BackoffCall start(BackoffPolicy policy) {
		return this.controls.start(this.executor, policy, null, this.listener, null);
	}

	private CompletionStage<String> throttledOnce(AtomicInteger sent) {
		return (sent.incrementAndGet() < 2) ? CompletableFuture.failedFuture(this.throttled)
				: CompletableFuture.completedFuture("ok");
	}

	private void assertWithinMaxElapsed(BackoffPolicy policy) {
		assertThat(Duration.ofNanos(this.clock.nanoTime() - this.start)).isEqualTo(BACKOFF)
			.isLessThanOrEqualTo(policy.getRules().getMaxElapsed());
	}

	/** The slot the retry did not take is the next attempt's: one interval after the first attempt's. */
	private void assertTheRetrysSlotIsFree() {
		assertThat(this.pacing.acquire()).isEqualTo(this.interval - BACKOFF.toNanos());
	}

}
