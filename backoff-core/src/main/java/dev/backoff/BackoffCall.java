package dev.backoff;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

import dev.backoff.internal.Durations;
import org.jspecify.annotations.Nullable;

/**
 * One call under a {@link BackoffPolicy}, stepped by hand: for integrations that schedule
 * attempts themselves (Reactor's {@code retryWhen}, for one), so that they decide exactly as
 * {@link BackoffExecutor} does. Obtain one from {@link BackoffExecutor#start}.
 *
 * <p>The protocol: {@link #attempt} runs every attempt (or {@link #beginAttempt()} counts one that the caller
 * runs itself); after a failed attempt (or one whose result asks for a retry) {@link #nextDelay} gives the wait
 * before the next, or {@code null} when the call ends, which is then reported with {@link #end}; a successful
 * attempt is reported with {@link #succeed()}; {@link #interrupt} ends the call early. The
 * end is claimed atomically, so exactly one end is reported even when a cancellation races
 * with an attempt. Apart from that, one attempt at a time: not for concurrent use.
 *
 * <p>An integration whose attempts can be cut off bounds each by {@link #getAttemptTimeout()}
 * when the policy sets one: an attempt still running then fails with
 * {@link #attemptTimedOut()}, handed to {@link #nextDelay} like any failure, and the attempt
 * itself is cancelled. One that cannot (a blocking call) refuses such a policy rather than
 * ignore it.
 */
public final class BackoffCall {

	/** Earlier failures attached as suppressed to the one the caller gets, at most. */
	public static final int MAX_SUPPRESSED = 8;

	private static final VarHandle ENDED;

	static {
		try {
			ENDED = MethodHandles.lookup().findVarHandle(BackoffCall.class, "ended", boolean.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final BackoffPolicy policy;
	private final @Nullable RetryBudget budget;
	private final BackoffListener listener;
	final NanoClock clock;
	private final RandomSource randomSource;
	final long startNanos;

	/** The policy of the retrying call this one runs inside, or {@code null}: see {@link Nested}. */
	private final @Nullable BackoffPolicy enclosing;

	/** Whether this call's attempts mark their thread, so that calls made inside them are nested. */
	private final boolean encloses;

	/**
	 * The calling thread's holder, for a blocking call, whose attempts all run on the thread
	 * that started it: found once rather than at every attempt. {@code null} when attempts may
	 * run on other threads, each of which has its own.
	 */
	private final @Nullable Enclosing here;

	private @Nullable BackoffDelays delays;

	/** Allocated on the first failure worth remembering: a result-only retry needs none. */
	private @Nullable EarlierFailures earlier;

	/** The policy's admission and pacing, or {@code null}: see {@link OverloadControls#start}. */
	@Nullable OverloadControls controls;

	/** Whether the next attempt's slot was reserved before a wait: it goes without asking again. */
	boolean paced;

	private int attempts;

	@Nullable Outcome outcome;

	@SuppressWarnings("unused") // through ENDED
	private volatile boolean ended;

	BackoffCall(BackoffPolicy policy, @Nullable RetryBudget budget, BackoffListener listener, NanoClock clock,
			RandomSource randomSource, long startNanos, @Nullable BackoffPolicy enclosing, boolean encloses,
			@Nullable Enclosing here) {
		this.policy = policy;
		this.budget = budget;
		this.listener = listener;
		this.clock = clock;
		this.randomSource = randomSource;
		this.startNanos = startNanos;
		this.enclosing = enclosing;
		this.encloses = encloses;
		this.here = here;
	}

	/** @return the policy this call runs under */
	public BackoffPolicy getPolicy() {
		return this.policy;
	}

	@Nullable RetryBudget budget() {
		return this.budget;
	}

	BackoffListener listener() {
		return this.listener;
	}

	/** @return the attempts begun so far */
	public int getAttempts() {
		return this.attempts;
	}

	/** @return how the call ended, or was decided to end; {@code null} while it goes on */
	public @Nullable Outcome getOutcome() {
		return this.outcome;
	}

	/** @return whether the end of the call has been reported */
	public boolean isEnded() {
		return this.ended;
	}

	/**
	 * @return whether this call runs inside an attempt of another retrying call, which is left
	 * to retry the failures it would retry (see {@link Nested#OUTERMOST})
	 */
	public boolean isNested() {
		return this.enclosing != null;
	}

	/**
	 * @return whether calls started inside this call's attempts are nested in it: its policy
	 * allows retries and nesting is {@link Nested#OUTERMOST}. Integrations that carry the
	 * enclosing call along their own chain pass {@link #getPolicy()} on when this is true.
	 */
	public boolean isEnclosing() {
		return this.encloses;
	}

	/**
	 * @return how long each attempt may take before it fails with {@link #attemptTimedOut()}:
	 * the policy's {@link BackoffPolicy#getAttemptTimeout() attempt timeout}, or {@code null}
	 * for no limit
	 */
	public @Nullable Duration getAttemptTimeout() {
		return this.policy.getAttemptTimeout();
	}

	/**
	 * The failure of the attempt under way when it has not completed within {@link #getAttemptTimeout()}: hand
	 * it to {@link #nextDelay} as that attempt's failure, classified like any other failure.
	 * @return a new {@link TimeoutException} naming the attempt and the timeout, e.g.
	 * {@code attempt 2 did not complete within 2s}
	 * @throws IllegalStateException if the policy has no attempt timeout
	 */
	public TimeoutException attemptTimedOut() {
		return attemptTimedOut(this.attempts);
	}

	TimeoutException attemptTimedOut(int attempt) {
		Duration timeout = getAttemptTimeout();
		if (timeout == null) {
			throw new IllegalStateException("The policy has no attemptTimeout: " + this.policy);
		}
		return new TimeoutException("attempt " + attempt + " did not complete within " + Durations.format(timeout));
	}

	/** Counts an attempt about to start, which the caller runs itself. */
	public void beginAttempt() {
		this.attempts++;
	}

	/**
	 * Passes the attempt about to be sent through the policy's {@link OverloadControls}, if it has any: call it
	 * before every attempt, the first included, and wait what it returns before sending (after the retry's wait,
	 * which the pace adds to). A retry's admission was decided by {@link #nextDelay}; the first attempt's here.
	 * @return the nanoseconds to wait for the attempt's slot (pacing, once the dependency has throttled), 0 to
	 * send it now, or {@link OverloadControls#NOT_SENT} for a retry whose slot is past {@code maxElapsed}: the
	 * call ends {@code timed_out} unsent, to be reported with {@link #end} as when {@link #nextDelay} says so
	 * @throws AttemptNotSentException when the call's first attempt is not sent, the call ended with
	 * it: rejected by admission ({@link AdmissionRejectedException}), or its slot is past {@code maxElapsed}
	 */
	public long beforeAttempt() {
		return (this.controls != null) ? this.controls.beforeAttempt(this) : 0;
	}

	/**
	 * Counts and runs one attempt, with this thread marked as inside it, so that a retrying
	 * call made from the attempt knows it is nested (see {@link Nested}) and the attempt can
	 * read its number ({@link CurrentAttempt}).
	 * @param <T> the result type
	 * @param task the attempt
	 * @return what the attempt returns
	 * @throws Throwable what the attempt throws
	 */
	public <T extends @Nullable Object> T attempt(BackoffTask<T> task) throws Throwable {
		this.attempts++;
		Enclosing here = (this.here != null) ? this.here : Enclosing.current();
		BackoffPolicy outer = here.policy;
		int outerAttempt = here.attempt;
		if (this.encloses) {
			here.policy = this.policy;
		}
		here.attempt = this.attempts;
		try {
			return task.run();
		}
		finally {
			here.policy = outer;
			here.attempt = outerAttempt;
		}
	}

	/**
	 * Decides what follows a failed attempt ({@code failure} given) or an attempt whose result
	 * asked for a retry ({@code failure} null): the wait before the next attempt, reported to
	 * the listener, or {@code null} when the call ends here, its {@link #getOutcome() outcome}
	 * set ({@code not_retryable}, {@code exhausted}, {@code nested}, {@code budget_exhausted},
	 * {@code timed_out} or {@code admission_rejected}, decided in that order).
	 *
	 * <p>The wait is the next of the policy's delays (drawn from its throttling schedule after
	 * a failure the rules classify as {@link RetryRules#isThrottled throttling}), or the
	 * server's {@link RetryAfter} hint when that is longer. Every failure worth a retry takes a
	 * token from the call's {@link RetryBudget}, if it has one, even when no retry follows
	 * (a throttling failure takes the budget's {@code throttleCost}).
	 * @param failure the attempt's failure, or {@code null} for a result that asked for a retry
	 * @return the wait, or {@code null} to end the call with {@link #end}
	 */
	public @Nullable Duration nextDelay(@Nullable Throwable failure) {
		RetryRules rules = this.policy.getRules();
		boolean retryable = failure == null || RuleCalls.isRetryable(rules, failure);
		boolean throttled = retryable && failure != null && RuleCalls.isThrottled(rules, failure);
		if (this.controls != null) {
			this.controls.answered(this.attempts, failure == null || !retryable, throttled);
		}
		if (!retryable) {
			return stop(Outcome.NOT_RETRYABLE);
		}
		boolean withinBudget = (this.budget == null) || this.budget.onFailure(throttled);
		if (this.attempts >= this.policy.getSchedule().getMaxAttempts()) {
			return stop(Outcome.EXHAUSTED);
		}
		if (failure != null && this.enclosing != null && RuleCalls.isRetryable(this.enclosing.getRules(), failure)) {
			return stop(Outcome.NESTED);
		}
		if (!withinBudget) {
			return stop(Outcome.BUDGET_EXHAUSTED);
		}
		long delay = delays().nextNanos(throttled);
		boolean hinted = false;
		if (failure != null) {
			long hint = RuleCalls.retryAfterNanos(rules, failure);
			if (hint > this.policy.maxRetryAfterNanos()) {
				// The server will not be ready within what this policy may wait: stop now
				// rather than sleep in vain and fail anyway.
				return stop(Outcome.TIMED_OUT);
			}
			hinted = hint > delay;
			delay = Math.max(delay, hint);
		}
		Duration maxElapsed = rules.getMaxElapsed();
		if (maxElapsed != null) {
			long elapsed = this.clock.nanoTime() - this.startNanos;
			// Compared by subtraction: elapsed + delay could overflow.
			if (delay > maxElapsed.toNanos() - elapsed) {
				return stop(Outcome.TIMED_OUT);
			}
		}
		if (this.controls != null && !this.controls.admitsRetry(this.attempts + 1, failure)) {
			return stop(Outcome.ADMISSION_REJECTED);
		}
		if (failure != null) {
			remember(failure);
		}
		Duration wait = Duration.ofNanos(delay);
		if (hinted) {
			ListenerCalls.retryAfter(this.listener, this.attempts, wait);
		}
		ListenerCalls.retryScheduled(this.listener, this.attempts, wait, failure);
		return wait;
	}

	/**
	 * Reports the call's success, unless its end was already reported.
	 * @return whether this reported the end
	 */
	public boolean succeed() {
		return succeed((this.attempts <= 1) ? Outcome.SUCCESS : Outcome.SUCCESS_AFTER_RETRY);
	}

	/** @see HedgedCall: a call won by a hedge succeeded without a retry, in more than one attempt */
	boolean succeed(Outcome outcome) {
		if (!claimEnd()) {
			return false;
		}
		this.outcome = outcome;
		if (this.budget != null) {
			this.budget.onSuccess();
		}
		if (this.controls != null) {
			this.controls.answered(this.attempts, true, false);
		}
		ListenerCalls.success(this.listener, this.outcome, this.attempts);
		return true;
	}

	/**
	 * Ends the call with the outcome {@link #nextDelay} decided, unless its end was already
	 * reported, attaching the earlier failures to {@code failure} as suppressed.
	 * @param <X> the failure type
	 * @param failure the failure the caller gets, or {@code null} when the last result is returned
	 * @return {@code failure}, for {@code throw call.end(failure)}
	 */
	public <X extends @Nullable Throwable> X end(X failure) {
		Outcome decided = this.outcome;
		report((decided != null) ? decided : Outcome.EXHAUSTED, failure);
		return failure;
	}

	/**
	 * Whether a successful attempt's result asks for another attempt. A result predicate that
	 * itself throws ends the call with {@link Outcome#NOT_RETRYABLE}, and its exception is
	 * rethrown for the caller.
	 * @param result the attempt's result
	 * @return {@code true} to retry
	 */
	public boolean isRetryableResult(@Nullable Object result) {
		try {
			return this.policy.getRules().isRetryableResult(result);
		}
		catch (RuntimeException ex) {
			throw abort(ex);
		}
		catch (Error ex) {
			throw abort(ex);
		}
	}

	/**
	 * Ends the call with {@link Outcome#NOT_RETRYABLE} whatever the policy says, unless its end
	 * was already reported: for a failure outside the attempt, such as a result predicate that
	 * itself threw.
	 * @param <X> the failure type
	 * @param failure the failure the caller gets
	 * @return {@code failure}, for {@code throw call.abort(failure)}
	 */
	public <X extends Throwable> X abort(X failure) {
		report(Outcome.NOT_RETRYABLE, failure);
		return failure;
	}

	/**
	 * Ends the call with {@link Outcome#INTERRUPTED} (interrupted, cancelled, or unable to
	 * schedule its next attempt), unless its end was already reported.
	 * @param failure the failure the caller gets
	 * @return whether this reported the end
	 */
	public boolean interrupt(@Nullable Throwable failure) {
		return report(Outcome.INTERRUPTED, failure);
	}

	private boolean report(Outcome outcome, @Nullable Throwable failure) {
		if (!claimEnd()) {
			return false;
		}
		this.outcome = outcome;
		EarlierFailures earlier = this.earlier;
		if (failure != null && earlier != null) {
			earlier.attachTo(failure);
		}
		ListenerCalls.failure(this.listener, outcome, this.attempts, failure);
		return true;
	}

	private boolean claimEnd() {
		return ENDED.compareAndSet(this, false, true);
	}

	private @Nullable Duration stop(Outcome outcome) {
		this.outcome = outcome;
		return null;
	}

	private BackoffDelays delays() {
		BackoffDelays delays = this.delays;
		if (delays == null) {
			delays = this.policy.getSchedule().delays(this.randomSource.generator());
			this.delays = delays;
		}
		return delays;
	}

	void remember(Throwable failure) {
		this.earlier = EarlierFailures.remember(this.earlier, failure);
	}

}
