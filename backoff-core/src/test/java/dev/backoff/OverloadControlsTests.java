package dev.backoff;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.RecordingListener.Failure;
import dev.backoff.RecordingListener.Success;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.within;

/**
 * {@link OverloadControls} in the executor's calls, blocking and not: admission rejects
 * attempts locally, unsent and uncounted; pacing makes attempts wait for their slots once the
 * dependency has throttled. Waits are recorded or scheduled on a manual scheduler, never slept.
 */
class OverloadControlsTests {

	private final ManualNanoClock clock = new ManualNanoClock();

	private final RecordingSleeper sleeper = new RecordingSleeper(this.clock);

	private final RecordingListener listener = new RecordingListener();

	private final ManualScheduler scheduler = new ManualScheduler(this.clock);

	private final BackoffExecutor executor = BackoffExecutor.builder()
		.sleeper(this.sleeper)
		.clock(this.clock)
		.listener(this.listener)
		.build();

	/** Every draw: an attempt is rejected while the rejection probability is above it. */
	private double draw = 0.5;

	private final BackoffPolicy policy = BackoffPolicy.builder()
		.baseDelay(Duration.ofMillis(100))
		.jitter(Jitter.NONE)
		.maxAttempts(3)
		.throttleOn(Throttled.class)
		.abortOn(IllegalArgumentException.class)
		.build();

	// Admission

	@Test
	void aFirstAttemptRejectedByAdmissionIsNeverSentAndTheCallerIsToldWhy() {
		Admission admission = admission(2.0);
		failedRequests(admission, 9);
		OverloadControls controls = new OverloadControls(admission, true, null);
		AtomicInteger sent = new AtomicInteger();
		Throwable thrown = catchThrowable(() -> controls.execute(this.executor, this.policy, null, this.listener,
				() -> sent.incrementAndGet()));
		assertThat(sent).hasValue(0);
		assertThat(thrown).isInstanceOf(AdmissionRejectedException.class)
			.hasMessage("Attempt 1 was not sent: admission (client-side throttling) rejected it locally, with "
					+ "probability 0.90, because fewer than 1/2 of the policy's attempts in the last 2m were accepted "
					+ "by the dependency (admission.ratio 2, admission.max-rejection 0.9)");
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.ADMISSION_REJECTED, 0, thrown));
		// Not a request: the probability is as it was.
		assertThat(admission.rejectionProbability()).isCloseTo(0.9, within(1e-9));
	}

	@Test
	void aRetryRejectedByAdmissionEndsTheCallWithTheLastFailureWhichCarriesTheRejection() {
		Admission admission = admission(2.0);
		failedRequests(admission, 9);
		// Retries only: the first attempt goes whatever the probability.
		OverloadControls controls = new OverloadControls(admission, false, null);
		IOException failure = new IOException("down");
		ScriptedTask<String> task = ScriptedTask.of(failure);
		Throwable thrown = catchThrowable(() -> controls.execute(this.executor, this.policy, null, this.listener, task));
		assertThat(thrown).isSameAs(failure);
		assertThat(thrown.getSuppressed()).singleElement()
			.isInstanceOfSatisfying(AdmissionRejectedException.class, (rejection) -> {
				assertThat(rejection.getAttempt()).isEqualTo(2);
				assertThat(rejection.getMessage()).startsWith("Attempt 2 was not sent");
			});
		assertThat(task.calls()).isEqualTo(1);
		// No retry was scheduled, so none is counted nor waited for.
		assertThat(this.listener.delays()).isEmpty();
		assertThat(this.sleeper.sleeps()).isEmpty();
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.ADMISSION_REJECTED, 1, failure));
	}

	@Test
	void anAdmittedCallRunsAsWithoutControlsAndItsSuccessCountsAsAnAccept() throws Throwable {
		Admission admission = admission(1.0);
		OverloadControls controls = new OverloadControls(admission, true, null);
		assertThat(controls.execute(this.executor, this.policy, null, this.listener, () -> "ok")).isEqualTo("ok");
		assertThat(this.listener.ends()).containsExactly(new Success(Outcome.SUCCESS, 1));
		// One request, one accept: (1 - 1 × 1) / 2 = 0.
		assertThat(admission.rejectionProbability()).isZero();
	}

	@Test
	void aFailureThePolicyDoesNotRetryIsAnAcceptTheDependencyAnswered() {
		Admission admission = admission(1.0);
		OverloadControls controls = new OverloadControls(admission, true, null);
		catchThrowable(() -> controls.execute(this.executor, this.policy, null, this.listener, () -> {
			throw new IllegalArgumentException("no such quote");
		}));
		assertThat(admission.rejectionProbability()).isZero();
	}

	@Test
	void aRetriedFailureAndAThrottlingOneAreNotAccepts() {
		Admission admission = admission(1.0);
		OverloadControls controls = new OverloadControls(admission, true, null);
		BackoffPolicy once = this.policy.toBuilder().maxAttempts(1).build();
		catchThrowable(() -> controls.execute(this.executor, once, null, this.listener, () -> {
			throw new IOException("reset");
		}));
		// One request, no accept: (1 - 0) / 2.
		assertThat(admission.rejectionProbability()).isCloseTo(0.5, within(1e-9));
		catchThrowable(() -> controls.execute(this.executor, once, null, this.listener, () -> {
			throw new Throttled();
		}));
		// Two requests, no accept: 2 / 3, capped at 0.9.
		assertThat(admission.rejectionProbability()).isCloseTo(2.0 / 3, within(1e-9));
	}

	@Test
	void withRetriesOnlyFirstAttemptsAreNeitherRequestsNorAccepts() throws Throwable {
		Admission admission = admission(1.0);
		OverloadControls controls = new OverloadControls(admission, false, null);
		for (int i = 0; i < 5; i++) {
			controls.execute(this.executor, this.policy, null, this.listener, () -> "ok");
		}
		failedRequests(admission, 1);
		// Only the one failed request counts: 1 / 2, not (6 - 5) / 7.
		assertThat(admission.rejectionProbability()).isCloseTo(0.5, within(1e-9));
	}

	@Test
	void aNonBlockingFirstAttemptRejectedByAdmissionFailsTheFutureAtOnceAndIsNeverSent() {
		Admission admission = admission(2.0);
		failedRequests(admission, 9);
		OverloadControls controls = new OverloadControls(admission, true, null);
		AtomicInteger sent = new AtomicInteger();
		CompletableFuture<String> future = this.executor.executeAsync(
				controls.start(this.executor, this.policy, null, this.listener, null), null, null, () -> {
					sent.incrementAndGet();
					return CompletableFuture.completedFuture("ok");
				}, this.scheduler);
		assertThat(future).isCompletedExceptionally();
		assertThat(catchThrowable(future::join)).hasCauseInstanceOf(AdmissionRejectedException.class);
		assertThat(sent).hasValue(0);
		assertThat(this.scheduler.pending()).isZero();
		assertThat(this.listener.ends()).singleElement()
			.isInstanceOfSatisfying(Failure.class, (end) -> assertThat(end.outcome()).isEqualTo(Outcome.ADMISSION_REJECTED));
	}

	// Pacing

	@Test
	void dormantPacingAddsNoWait() throws Throwable {
		OverloadControls controls = new OverloadControls(null, true, new Pacing(this.clock));
		ScriptedTask<String> task = ScriptedTask.of(new IOException("reset"), "ok");
		assertThat(controls.execute(this.executor, this.policy, null, this.listener, task)).isEqualTo("ok");
		assertThat(this.sleeper.sleeps()).containsExactly(Duration.ofMillis(100));
	}

	@Test
	void afterAThrottlingFailureEveryAttemptOfThePolicyWaitsForItsSlotTheFirstIncluded() throws Throwable {
		Pacing pacing = new Pacing(this.clock);
		OverloadControls controls = new OverloadControls(null, true, pacing);
		ScriptedTask<String> throttledOnce = ScriptedTask.of(new Throttled(), "ok");
		assertThat(controls.execute(this.executor, this.policy, null, this.listener, throttledOnce)).isEqualTo("ok");
		assertThat(pacing.isActive()).isTrue();
		int before = this.sleeper.sleeps().size();
		// Two first attempts at once: the second waits a whole slot at the rate allowed.
		long interval = (long) (1e9 / pacing.rate());
		for (int i = 0; i < 2; i++) {
			controls.execute(this.executor, this.policy, null, this.listener, () -> "ok");
		}
		assertThat(this.sleeper.sleeps().subList(before, this.sleeper.sleeps().size())).isNotEmpty()
			.allSatisfy((pace) -> assertThat(pace.toNanos()).isPositive().isLessThanOrEqualTo(2 * interval));
	}

	@Test
	void aFirstAttemptWhoseSlotIsPastMaxElapsedIsNotSentAndTheCallEndsTimedOut() {
		Pacing pacing = new Pacing(this.clock);
		pacing.onThrottled();
		// Other callers hold the slots of the next second and more.
		while (pacing.acquire() <= Duration.ofSeconds(1).toNanos()) {
			// Reserved.
		}
		OverloadControls controls = new OverloadControls(null, true, pacing);
		BackoffPolicy bounded = this.policy.toBuilder().maxElapsed(Duration.ofSeconds(1)).build();
		AtomicInteger sent = new AtomicInteger();
		Throwable thrown = catchThrowable(() -> controls.execute(this.executor, bounded, null, this.listener,
				() -> sent.incrementAndGet()));
		assertThat(thrown).isExactlyInstanceOf(AttemptNotSentException.class)
			.hasMessageStartingWith("Attempt 1 was not sent: its slot at the pace (")
			.hasMessageEndingWith("is further away than maxElapsed (1s) allows");
		assertThat(sent).hasValue(0);
		assertThat(this.sleeper.sleeps()).isEmpty();
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.TIMED_OUT, 0, thrown));
	}

	@Test
	void aNonBlockingCallWaitsForThePaceOnTheSchedulerNeverOnAThread() {
		Pacing pacing = new Pacing(this.clock);
		pacing.onThrottled();
		pacing.acquire();
		OverloadControls controls = new OverloadControls(null, true, pacing);
		AtomicInteger sent = new AtomicInteger();
		CompletableFuture<String> future = this.executor.executeAsync(
				controls.start(this.executor, this.policy, null, this.listener, null), null, null, () -> {
					sent.incrementAndGet();
					return CompletableFuture.<String>completedFuture("ok");
				}, this.scheduler);
		assertThat(sent).hasValue(0);
		assertThat(this.sleeper.sleeps()).isEmpty();
		assertThat(this.scheduler.delays()).singleElement()
			.satisfies((pace) -> assertThat(pace.toNanos()).isPositive());
		this.scheduler.runNext();
		assertThat(sent).hasValue(1);
		assertThat(future).isCompletedWithValue("ok");
	}

	@Test
	void aNonBlockingRetryWaitsForTheBackoffThenForThePace() {
		Pacing pacing = new Pacing(this.clock);
		OverloadControls controls = new OverloadControls(null, true, pacing);
		AtomicInteger sent = new AtomicInteger();
		CompletableFuture<String> future = this.executor.executeAsync(
				controls.start(this.executor, this.policy, null, this.listener, null), null, null, () -> {
					CompletionStage<String> stage = (sent.incrementAndGet() < 3)
							? CompletableFuture.failedFuture(new Throttled()) : CompletableFuture.completedFuture("ok");
					return stage;
				}, this.scheduler);
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("ok");
		assertThat(sent).hasValue(3);
		// Each retry's backoff wait, and after the second throttling answer a wait for the pace.
		assertThat(this.scheduler.delays()).hasSizeGreaterThan(2);
		assertThat(this.listener.delays()).hasSize(2);
	}

	@Test
	void aHedgedCallSendsNoHedgeWhileThePaceIsActiveAndOneWhileItIsDormant() {
		BackoffPolicy hedged = this.policy.toBuilder().hedgeDelay(Duration.ofMillis(50)).maxHedges(1).build();
		Pacing dormant = new Pacing(this.clock);
		assertThat(copiesSent(hedged, new OverloadControls(null, true, dormant))).isEqualTo(2);
		Pacing active = new Pacing(this.clock);
		active.onThrottled();
		assertThat(copiesSent(hedged, new OverloadControls(null, true, active))).isEqualTo(1);
	}

	/** Runs a hedged call whose copies do not answer until every timer has run; @return the copies sent. */
	private int copiesSent(BackoffPolicy hedged, OverloadControls controls) {
		AtomicInteger sent = new AtomicInteger();
		CompletableFuture<String> answer = new CompletableFuture<>();
		CompletableFuture<String> future = this.executor.executeAsync(
				controls.start(this.executor, hedged, null, this.listener, null), null, null, () -> {
					sent.incrementAndGet();
					return answer;
				}, this.scheduler);
		this.scheduler.runAll();
		answer.complete("ok");
		assertThat(future).isCompletedWithValue("ok");
		return sent.get();
	}

	private Admission admission(double ratio) {
		return new Admission(ratio, Duration.ofMinutes(2), 0.9, this.clock, () -> new ScriptedRandom(this.draw));
	}

	/** Requests sent and not accepted, each admitted; the later draws are 0.5 again. */
	private void failedRequests(Admission admission, int count) {
		this.draw = 0.999;
		for (int i = 0; i < count; i++) {
			assertThat(admission.admit()).isTrue();
		}
		this.draw = 0.5;
	}

	/** A failure the policy classifies as throttling ({@code throttleOn}). */
	@SuppressWarnings("serial")
	static final class Throttled extends IOException {

	}

}
