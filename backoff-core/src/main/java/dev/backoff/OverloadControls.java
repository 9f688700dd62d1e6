package dev.backoff;

import java.time.Duration;
import java.util.Locale;

import dev.backoff.internal.Durations;

import org.jspecify.annotations.Nullable;

/**
 * The overload controls of a policy that each attempt passes before it is sent: kept beside
 * the policy, as its {@link RetryBudget} is, and shared by every call of the policy. Either may
 * be absent:
 * <ul>
 * <li>{@link Admission} (client-side throttling) may reject an attempt locally: a call's first
 * ({@link BackoffCall#beforeAttempt()}), unless it is told to throttle retries only, or a retry
 * ({@link BackoffCall#nextDelay}, after every other rule let it go, so that a retry refused for
 * another reason is not counted). A rejected attempt is never sent and counts as neither an
 * attempt nor a request; the call ends with {@link Outcome#ADMISSION_REJECTED}.</li>
 * <li>{@link Pacing} makes every attempt, the first included, wait for its slot once the
 * dependency has throttled; that wait comes after a retry's, adding to it. An attempt whose slot
 * is further away than what the policy's {@code maxElapsed} leaves of the call takes none (the
 * slot goes to another attempt) and is not sent, so that callers offering more than the pace allows
 * do not queue without end: the call ends {@link Outcome#TIMED_OUT}. A first attempt's caller gets an
 * {@link AttemptNotSentException}; a retry's gets the last attempt's own failure (or result), as
 * when the retry's backoff wait would pass {@code maxElapsed} (see {@link #NOT_SENT}).</li>
 * </ul>
 *
 * <p>What each attempt's answer tells them, by the policy's own classification:
 * <ul>
 * <li>Admission counts an attempt as <em>accepted</em> (with {@code firstAttempts} false, a retry
 * only: first attempts are then neither requests nor accepts) when it succeeded, returned a result
 * (even one that asks for a retry), or failed with a failure the policy does not retry (a 404,
 * a validation error: the dependency answered, the fault is the caller's). A failure the policy
 * retries is not accepted: a 5xx, a connection failure or a timeout, and a throttling failure (a
 * 429, a 503 with Retry-After, a {@code throttle-on} type), the dependency's own word that it is
 * overloaded. So it is Envoy's admission control's rule (status &lt; 500 is a success) with 429
 * moved to the failures, as the SRE book counts a request the backend rejected for overload.</li>
 * <li>Pacing wakes, or slows, on every failure the policy classifies as throttling, and
 * lets the rate grow on every other answer.</li>
 * </ul>
 *
 * <p>Hedges: while pacing is active or admission rejects some attempts, a hedged call sends no
 * hedge (the dependency is overloaded: a copy would only add to its load); each round's first
 * copy passes the controls as any attempt. Thread-safe.
 */
public final class OverloadControls {

	/**
	 * What {@link BackoffCall#beforeAttempt()} returns for a retry that is not sent: its slot at the
	 * pace is further away than what {@code maxElapsed} leaves of the call. The call ends there with
	 * {@link Outcome#TIMED_OUT}, as when {@link BackoffCall#nextDelay} returns {@code null}: report it
	 * with {@link BackoffCall#end} and the last attempt's failure ({@code null} when a result asked for
	 * the retry), and hand the caller that failure, or that result.
	 */
	public static final long NOT_SENT = -1;

	private final @Nullable Admission admission;

	private final boolean firstAttempts;

	private final @Nullable Pacing pacing;

	/**
	 * @param admission the policy's admission, or {@code null} for none
	 * @param firstAttempts whether admission may reject a call's first attempt; {@code false}
	 * rejects retries only
	 * @param pacing the policy's pacing, or {@code null} for none
	 */
	public OverloadControls(@Nullable Admission admission, boolean firstAttempts, @Nullable Pacing pacing) {
		this.admission = admission;
		this.firstAttempts = firstAttempts;
		this.pacing = pacing;
	}

	/** @return the policy's admission, or {@code null} for none */
	public @Nullable Admission getAdmission() {
		return this.admission;
	}

	/** @return whether admission may reject a call's first attempt, not only its retries */
	public boolean isFirstAttempts() {
		return this.firstAttempts;
	}

	/** @return the policy's pacing, or {@code null} for none */
	public @Nullable Pacing getPacing() {
		return this.pacing;
	}

	/**
	 * Starts a call under these controls, to be stepped by hand or run without blocking, as
	 * {@link BackoffExecutor#start} does.
	 * @param executor the executor
	 * @param policy the policy
	 * @param budget the retry budget that every call of the policy shares, or {@code null} for none
	 * @param listener receives this call's events
	 * @param enclosing the policy of the retrying call this one runs inside, or {@code null} to
	 * ask the calling thread
	 * @return the call, before its first attempt
	 */
	public BackoffCall start(BackoffExecutor executor, BackoffPolicy policy, @Nullable RetryBudget budget,
			BackoffListener listener, @Nullable BackoffPolicy enclosing) {
		BackoffCall call = executor.start(policy, budget, listener, enclosing);
		call.controls = this;
		return call;
	}

	/**
	 * Runs a blocking call under these controls, as
	 * {@link BackoffExecutor#execute(BackoffPolicy, RetryBudget, BackoffListener, BackoffTask)} does; the
	 * waits for the pace, on the calling thread, with the executor's sleeper. An interrupt while the
	 * first attempt waits sends it at once, the thread's flag restored for the attempt to see.
	 * @param <T> the result type
	 * @param executor the executor
	 * @param policy the policy
	 * @param budget the retry budget that every call of the policy shares, or {@code null} for none
	 * @param listener receives this call's events
	 * @param task one attempt
	 * @return the result of the successful attempt (or the last result)
	 * @throws Throwable the last attempt's original failure, or an {@link AttemptNotSentException}
	 * when none was sent
	 * @throws IllegalArgumentException before any attempt, if the policy has an attempt timeout or hedging
	 */
	public <T extends @Nullable Object> T execute(BackoffExecutor executor, BackoffPolicy policy,
			@Nullable RetryBudget budget, BackoffListener listener, BackoffTask<T> task) throws Throwable {
		if (policy.getRules().getAttemptTimeout() != null || policy.getHedging().isEnabled()) {
			throw BlockingCall.refused(policy);
		}
		return BlockingCall.run(start(executor, policy, budget, listener, null), executor.getSleeper(), task);
	}

	/** @see BackoffCall#beforeAttempt() */
	long beforeAttempt(BackoffCall call) {
		if (call.paced) {
			// Its slot was reserved before the wait that has just ended.
			call.paced = false;
			return 0;
		}
		Admission admission = this.admission;
		if (call.getAttempts() == 0 && admission != null && this.firstAttempts && !admission.admit()) {
			call.outcome = Outcome.ADMISSION_REJECTED;
			throw call.end(rejection(admission, 1));
		}
		Pacing pacing = this.pacing;
		if (pacing == null) {
			return 0;
		}
		Duration maxElapsed = call.getPolicy().getRules().getMaxElapsed();
		// An attempt whose slot comes after the call must end takes none: the call ends unsent.
		long maxWait = (maxElapsed == null) ? Long.MAX_VALUE
				: maxElapsed.toNanos() - (call.clock.nanoTime() - call.startNanos);
		long pace = pacing.acquire(Math.max(0, maxWait));
		if (pace < 0) {
			call.outcome = Outcome.TIMED_OUT;
			if (call.getAttempts() > 0) {
				// The caller has the last attempt's failure or result, which its own caller gets.
				return NOT_SENT;
			}
			throw call.end(new AttemptNotSentException(String.format(Locale.ROOT, "Attempt 1 was not sent: its slot at "
					+ "the pace (%.2f attempts a second, the dependency having throttled) is further away than "
					+ "maxElapsed (%s) allows", pacing.rate(), Durations.format(maxElapsed))));
		}
		if (pace > 0) {
			ListenerCalls.paced(call.listener(), call.getAttempts() + 1, Duration.ofNanos(pace));
		}
		return pace;
	}

	/**
	 * Whether admission lets a retry go; a rejection is attached to the failure the caller will get.
	 * @param attempt the retry's attempt number
	 * @param failure the last attempt's failure, or {@code null} when a result asked for the retry
	 */
	boolean admitsRetry(int attempt, @Nullable Throwable failure) {
		Admission admission = this.admission;
		if (admission == null || admission.admit()) {
			return true;
		}
		if (failure != null) {
			failure.addSuppressed(rejection(admission, attempt));
		}
		return false;
	}

	/**
	 * An attempt's answer.
	 * @param attempt its number: with retries only under admission, a first attempt's accept
	 * is not counted, as it was not counted as a request
	 * @param accepted whether the dependency accepted it (see the class comment)
	 * @param throttled whether it failed with a failure the policy classifies as throttling
	 */
	void answered(int attempt, boolean accepted, boolean throttled) {
		Admission admission = this.admission;
		if (accepted && admission != null && (this.firstAttempts || attempt > 1)) {
			admission.accepted();
		}
		Pacing pacing = this.pacing;
		if (pacing != null) {
			if (throttled) {
				pacing.onThrottled();
			}
			else {
				pacing.onSuccess();
			}
		}
	}

	/** A hedged call's copy failed while another runs on: a retried failure, never accepted. */
	static void copyFailed(BackoffCall call, boolean throttled) {
		if (call.controls != null) {
			call.controls.answered(call.getAttempts(), false, throttled);
		}
	}

	/** @return whether the call's controls hold its hedges back: pacing active, or admission rejecting */
	static boolean holdsHedges(BackoffCall call) {
		OverloadControls controls = call.controls;
		return controls != null && ((controls.pacing != null && controls.pacing.isActive())
				|| (controls.admission != null && controls.admission.rejectionProbability() > 0));
	}

	private static AdmissionRejectedException rejection(Admission admission, int attempt) {
		return new AdmissionRejectedException(attempt, admission, admission.rejectionProbability());
	}

}
