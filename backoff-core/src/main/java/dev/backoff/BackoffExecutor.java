package dev.backoff;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

import dev.backoff.internal.Exceptions;
import org.jspecify.annotations.Nullable;

/**
 * Runs calls under a {@link BackoffPolicy}: at most {@code maxAttempts} attempts, waiting the
 * schedule's {@link BackoffSchedule#delays() delays} between them, and, where a
 * {@link RetryBudget} is given, only while the budget allows.
 *
 * <p>The caller always gets the <em>original</em> failure back, checked exceptions included
 * and never wrapped, with the earlier attempts' failures attached as suppressed (at most
 * {@value BackoffCall#MAX_SUPPRESSED}). A wait that would end past the policy's
 * {@code maxElapsed} is not started. An interrupt during a wait restores the thread's
 * interrupt flag and ends the call at once. Every call ends with exactly one {@link Outcome},
 * reported to the {@link BackoffListener}.
 *
 * <p>A call started inside an attempt of another retrying call on the same thread is nested:
 * by default ({@link Nested#OUTERMOST}) it leaves the failures that the enclosing call would
 * retry to that call, so that retries at several levels do not multiply.
 *
 * <p>Time, sleeping and randomness are injected, so tests never really wait. Instances are
 * immutable and thread-safe; one serves any number of policies and threads.
 *
 * <pre class="code">
 * BackoffExecutor executor = BackoffExecutor.builder().build();
 * Quote quote = executor.call(policy, () -&gt; client.fetch(id));
 * </pre>
 */
public final class BackoffExecutor {

	private final Sleeper sleeper;
	private final NanoClock clock;
	private final RandomSource randomSource;
	private final BackoffListener listener;
	private final boolean outermost;

	private BackoffExecutor(Builder builder) {
		this.sleeper = builder.sleeper;
		this.clock = builder.clock;
		this.randomSource = builder.randomSource;
		this.listener = builder.listener;
		this.outermost = (builder.nested == Nested.OUTERMOST);
	}

	/** @return how blocking calls wait between attempts */
	public Sleeper getSleeper() {
		return this.sleeper;
	}

	/** @return the clock that times calls: their elapsed time, their attempts, a method's {@link Latencies} */
	public NanoClock getClock() {
		return this.clock;
	}

	/** @return what a call started inside another retrying call does */
	public Nested getNested() {
		return this.outermost ? Nested.OUTERMOST : Nested.INDEPENDENT;
	}

	/**
	 * @return the policy of the retrying call whose attempt runs on this thread, which a call
	 * started here would be nested in; {@code null} outside any, or with {@link Nested#INDEPENDENT}
	 */
	public @Nullable BackoffPolicy getEnclosingPolicy() {
		return this.outermost ? Enclosing.current().policy : null;
	}

	/**
	 * Whether the final failure of a nested call belongs to the enclosing call, which retries
	 * it: both policies retry it. Such a failure must reach the enclosing call as it is, so a
	 * fallback must not answer for it (the enclosing call's own fallback may, once it ends).
	 * @param policy the nested call's policy
	 * @param enclosing the enclosing call's policy, as {@link #getEnclosingPolicy()} gave it
	 * when the nested call started, or {@code null} when it was not nested
	 * @param failure the nested call's final failure
	 * @return whether to pass the failure on to the enclosing call
	 */
	public static boolean isLeftToEnclosing(BackoffPolicy policy, @Nullable BackoffPolicy enclosing,
			Throwable failure) {
		return Enclosing.isLeftToEnclosing(policy, enclosing, failure);
	}

	/**
	 * @return a builder with {@link Sleeper#THREAD}, {@link NanoClock#SYSTEM},
	 * {@link RandomSource#THREAD_LOCAL}, no listener and {@link Nested#OUTERMOST}
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Calls {@code callable} under {@code policy}, reporting to this executor's listener.
	 * @param <T> the result type
	 * @param policy the policy
	 * @param callable one attempt
	 * @return the result of the successful attempt (or the last, when a result predicate still matched)
	 * @throws Exception the last attempt's original exception
	 */
	public <T extends @Nullable Object> T call(BackoffPolicy policy, Callable<T> callable) throws Exception {
		try {
			return execute(policy, null, this.listener, callable::call);
		}
		catch (Throwable ex) {
			throw Exceptions.<Exception>rethrow(ex);
		}
	}

	/**
	 * Calls {@code supplier} under {@code policy}, reporting to this executor's listener.
	 * @param <T> the result type
	 * @param policy the policy
	 * @param supplier one attempt
	 * @return the result of the successful attempt
	 * @throws RuntimeException the last attempt's original exception
	 */
	public <T extends @Nullable Object> T get(BackoffPolicy policy, Supplier<T> supplier) {
		try {
			return execute(policy, null, this.listener, supplier::get);
		}
		catch (Throwable ex) {
			throw Exceptions.<RuntimeException>rethrow(ex);
		}
	}

	/**
	 * Runs {@code task} under {@code policy}, reporting to {@code listener}: the general form
	 * the others use, for callers (such as a method interceptor) that may throw anything.
	 * Blocking: a policy with an {@link BackoffPolicy#getAttemptTimeout() attempt timeout} or
	 * {@link Hedging} is refused, since Java cannot stop a thread safely.
	 * @param <T> the result type
	 * @param policy the policy
	 * @param budget the retry budget that every call of the policy shares, or {@code null} for none
	 * @param listener receives this call's events
	 * @param task one attempt
	 * @return the result of the successful attempt (or the last result, when a result predicate
	 * still matched as the call ended)
	 * @throws Throwable the last attempt's original failure
	 * @throws IllegalArgumentException before any attempt, if the policy has an attempt timeout or hedging
	 */
	public <T extends @Nullable Object> T execute(BackoffPolicy policy, @Nullable RetryBudget budget,
			BackoffListener listener, BackoffTask<T> task) throws Throwable {
		if (policy.getRules().getAttemptTimeout() != null || policy.getHedging().isEnabled()) {
			throw BlockingCall.refused(policy);
		}
		long start = startNanos(policy);
		// The first attempt runs inline, marked as BackoffCall.attempt would, so that a call
		// that succeeds at once creates no state.
		Enclosing here = Enclosing.current();
		BackoffPolicy outer = here.policy;
		BackoffPolicy enclosing = this.outermost ? outer : null;
		boolean encloses = this.outermost && Enclosing.encloses(policy);
		int outerAttempt = here.attempt;
		T result = null;
		Throwable failure = null;
		if (encloses) {
			here.policy = policy;
		}
		here.attempt = 1;
		try {
			result = task.run();
		}
		catch (Throwable ex) {
			failure = ex;
		}
		finally {
			here.policy = outer;
			here.attempt = outerAttempt;
		}
		if (failure != null) {
			BackoffCall call = newCall(policy, budget, listener, start, enclosing, encloses, here);
			return BlockingCall.retry(call, this.sleeper, task, failure, null);
		}
		boolean retryResult;
		try {
			retryResult = policy.getRules().isRetryableResult(result);
		}
		catch (Throwable ex) {
			// The result predicate failed: the call ends here, with exactly one outcome.
			ListenerCalls.failure(listener, Outcome.NOT_RETRYABLE, 1, ex);
			throw ex;
		}
		if (retryResult) {
			BackoffCall call = newCall(policy, budget, listener, start, enclosing, encloses, here);
			return BlockingCall.retry(call, this.sleeper, task, null, result);
		}
		// The hot path: no state, no allocation.
		if (budget != null) {
			budget.onSuccess();
		}
		// Guarded in place rather than through ListenerCalls.success: one frame less to inline.
		try {
			listener.onSuccess(Outcome.SUCCESS, 1);
		}
		catch (Throwable ex) {
			ListenerCalls.failed(listener, "onSuccess", ex);
		}
		return result;
	}

	/**
	 * @param here the calling thread's holder when every attempt runs on this thread (a
	 * blocking call), or {@code null} for each attempt to find its thread's
	 */
	private BackoffCall newCall(BackoffPolicy policy, @Nullable RetryBudget budget, BackoffListener listener,
			long start, @Nullable BackoffPolicy enclosing, boolean encloses, @Nullable Enclosing here) {
		return new BackoffCall(policy, budget, listener, this.clock, this.randomSource, start, enclosing, encloses,
				here);
	}

	private long startNanos(BackoffPolicy policy) {
		return (policy.getRules().getMaxElapsed() != null) ? this.clock.nanoTime() : 0;
	}

	/**
	 * Starts a call to be stepped by hand, for integrations that schedule attempts themselves,
	 * and that may carry the enclosing call along their own chain (a Reactor context, say),
	 * where the calling thread cannot tell.
	 * @param policy the policy
	 * @param budget the retry budget that every call of the policy shares, or {@code null} for none
	 * @param listener receives this call's events
	 * @param enclosing the policy of the retrying call this one runs inside, or {@code null} to
	 * ask the calling thread; ignored with {@link Nested#INDEPENDENT}
	 * @return the call, before its first attempt
	 */
	public BackoffCall start(BackoffPolicy policy, @Nullable RetryBudget budget, BackoffListener listener,
			@Nullable BackoffPolicy enclosing) {
		long start = startNanos(policy);
		if (!this.outermost) {
			return newCall(policy, budget, listener, start, null, false, null);
		}
		BackoffPolicy outer = (enclosing != null) ? enclosing : Enclosing.current().policy;
		// Its attempts may run on other threads (a scheduler's, say): each finds its own holder.
		return newCall(policy, budget, listener, start, outer, Enclosing.encloses(policy), null);
	}

	/**
	 * Runs asynchronous work under {@code policy} without blocking any thread: the first attempt
	 * starts on the calling thread, each wait is scheduled on {@code scheduler}, and each later
	 * attempt starts there. Cancelling the returned future cancels the pending retry; no later
	 * attempt starts. An attempt in flight is left to finish: its future belongs to the task,
	 * which may share it with other callers.
	 *
	 * <p>With an {@link BackoffPolicy#getAttemptTimeout() attempt timeout}, each attempt's stage
	 * that has not completed within it, from when the task returned it, fails the attempt with a
	 * {@link java.util.concurrent.TimeoutException} ({@link BackoffCall#attemptTimedOut()}),
	 * decided like any failure; a {@code CompletableFuture} stage is then completed exceptionally
	 * with it, so that its dependents stop waiting too (for a future shared with other callers,
	 * a cached one, that ends it for them as well), but the work behind it cannot be stopped
	 * from here and runs on: what it produces later is ignored. One timer per attempt, on
	 * {@code scheduler}, cancelled as the attempt completes or the call is cancelled; none
	 * without an attempt timeout. A timer that cannot be scheduled, or that the scheduler runs
	 * as it shuts down, ends the call with {@link Outcome#INTERRUPTED}, as a wait would.
	 *
	 * <p>With {@link Hedging}, copies overlap. The copies still running when one succeeds, or the call is
	 * cancelled, are cancelled ({@code toCompletableFuture().cancel(true)}): each was started for this call.
	 * A {@link Hedging#getPercentile() percentile} needs the method's {@link Latencies}, and a cap on the
	 * hedges the policy's {@link HedgeTokens}: use the next form (this one sends every hedge that is due).
	 * @param <T> the result type
	 * @param policy the policy
	 * @param budget the retry budget that every call of the policy shares, or {@code null} for none
	 * @param listener receives this call's events
	 * @param task starts one attempt; a failure may be thrown or returned as a failed stage
	 * @param scheduler runs the waits and the attempts after the first
	 * @return a future completed with the first successful result, or the last attempt's
	 * original failure (never a {@code CompletionException} wrapping it)
	 */
	public <T extends @Nullable Object> CompletableFuture<T> executeAsync(BackoffPolicy policy,
			@Nullable RetryBudget budget, BackoffListener listener, Supplier<? extends CompletionStage<T>> task,
			ScheduledExecutorService scheduler) {
		return executeAsync(start(policy, budget, listener, null), null, null, task, scheduler);
	}

	/**
	 * Runs a call that {@link #start} began, without blocking, as
	 * {@link #executeAsync(BackoffPolicy, RetryBudget, BackoffListener, Supplier, ScheduledExecutorService)}
	 * does: for integrations that carry the enclosing call along their own chain (a Reactor
	 * context). The task runs the attempt itself; this counts it ({@link BackoffCall#attempt}).
	 * With {@link Hedging}, each call adds its share to {@code hedgeTokens} and each hedge takes
	 * one as it is sent: when they are spent, a hedge that is due is held back
	 * ({@link HedgeEvent#HELD_BACK}) and the call waits for the copies it has.
	 * @param <T> the result type
	 * @param call the call, before its first attempt
	 * @param latencies the method's recent answer times, for a {@link Hedging#getPercentile() percentile} hedge delay
	 * @param hedgeTokens what the policy's hedges are paid from, shared by every call of the policy, or {@code null} for no cap
	 * @param task starts one attempt (one copy, with {@link Hedging})
	 * @param scheduler runs the waits, the hedge timers and the attempts after the first
	 * @return a future of the result, as the other form gives
	 * @throws IllegalArgumentException if the policy hedges after a percentile and no latencies are given
	 */
	public <T extends @Nullable Object> CompletableFuture<T> executeAsync(BackoffCall call,
			@Nullable Latencies latencies, @Nullable HedgeTokens hedgeTokens,
			Supplier<? extends CompletionStage<T>> task, ScheduledExecutorService scheduler) {
		if (call.getPolicy().getHedging().isEnabled()) {
			HedgedCall<T> hedged = new HedgedCall<>(call, latencies, hedgeTokens, this.clock, task, scheduler);
			hedged.run();
			return hedged;
		}
		AsyncCall<T> async = new AsyncCall<>(call, task, scheduler);
		async.run();
		return async;
	}

	/**
	 * Runs asynchronous work under {@code policy}, reporting to this executor's listener.
	 * @param <T> the result type
	 * @param policy the policy
	 * @param task starts one attempt
	 * @param scheduler runs the waits and the attempts after the first
	 * @return a future of the result
	 * @see #executeAsync(BackoffPolicy, RetryBudget, BackoffListener, Supplier, ScheduledExecutorService)
	 */
	public <T extends @Nullable Object> CompletableFuture<T> executeAsync(BackoffPolicy policy,
			Supplier<? extends CompletionStage<T>> task, ScheduledExecutorService scheduler) {
		return executeAsync(policy, null, this.listener, task, scheduler);
	}

	/**
	 * Builds a {@link BackoffExecutor}.
	 */
	public static final class Builder {

		private Sleeper sleeper = Sleeper.THREAD;

		private NanoClock clock = NanoClock.SYSTEM;

		private RandomSource randomSource = RandomSource.THREAD_LOCAL;

		private BackoffListener listener = BackoffListener.NONE;

		private Nested nested = Nested.OUTERMOST;

		private Builder() {
		}

		/**
		 * @param nested what a call started inside an attempt of another retrying call does
		 * @return this builder
		 */
		public Builder nested(Nested nested) {
			this.nested = Objects.requireNonNull(nested, "nested must not be null");
			return this;
		}

		/**
		 * @param sleeper waits between attempts of blocking calls
		 * @return this builder
		 */
		public Builder sleeper(Sleeper sleeper) {
			this.sleeper = Objects.requireNonNull(sleeper, "sleeper must not be null");
			return this;
		}

		/**
		 * @param clock measures elapsed time against {@code maxElapsed}
		 * @return this builder
		 */
		public Builder clock(NanoClock clock) {
			this.clock = Objects.requireNonNull(clock, "clock must not be null");
			return this;
		}

		/**
		 * @param randomSource supplies each call's random generator
		 * @return this builder
		 */
		public Builder randomSource(RandomSource randomSource) {
			this.randomSource = Objects.requireNonNull(randomSource, "randomSource must not be null");
			return this;
		}

		/**
		 * @param listener receives the events of calls made without an explicit listener
		 * @return this builder
		 */
		public Builder listener(BackoffListener listener) {
			this.listener = Objects.requireNonNull(listener, "listener must not be null");
			return this;
		}

		/** @return the executor */
		public BackoffExecutor build() {
			return new BackoffExecutor(this);
		}

	}

}
