package dev.backoff;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Runs calls under a {@link BackoffPolicy}: at most {@code maxAttempts} attempts, waiting the
 * policy's {@link BackoffPolicy#delays() delays} between them.
 *
 * <p>The caller always gets the <em>original</em> failure back, checked exceptions included
 * and never wrapped, with the earlier attempts' failures attached as suppressed (at most
 * {@value CallState#MAX_SUPPRESSED}). A wait that would end past the policy's
 * {@code maxElapsed} is not started. An interrupt during a wait restores the thread's
 * interrupt flag and ends the call at once. Every call ends with exactly one {@link Outcome},
 * reported to the {@link BackoffListener}.
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

	private BackoffExecutor(Builder builder) {
		this.sleeper = builder.sleeper;
		this.clock = builder.clock;
		this.randomSource = builder.randomSource;
		this.listener = builder.listener;
	}

	/** @return a builder with {@link Sleeper#THREAD}, {@link NanoClock#SYSTEM}, {@link RandomSource#THREAD_LOCAL} and no listener */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Calls {@code callable} under {@code policy}, reporting to this executor's listener.
	 * @param <T> the result type
	 * @param policy the policy
	 * @param callable one attempt
	 * @return the result of the successful attempt (or the last result, when a result predicate
	 * still matched as attempts ran out)
	 * @throws Exception the last attempt's original exception
	 */
	public <T extends @Nullable Object> T call(BackoffPolicy policy, Callable<T> callable) throws Exception {
		try {
			return execute(policy, this.listener, callable::call);
		}
		catch (Throwable ex) {
			throw BackoffExecutor.<Exception>rethrow(ex);
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
			return execute(policy, this.listener, supplier::get);
		}
		catch (Throwable ex) {
			throw BackoffExecutor.<RuntimeException>rethrow(ex);
		}
	}

	/**
	 * Runs {@code task} under {@code policy}, reporting to {@code listener}: the general form
	 * the others use, for callers (such as a method interceptor) that may throw anything.
	 * @param <T> the result type
	 * @param policy the policy
	 * @param listener receives this call's events
	 * @param task one attempt
	 * @return the result of the successful attempt (or the last result, when a result predicate
	 * still matched as the call ended)
	 * @throws Throwable the last attempt's original failure
	 */
	public <T extends @Nullable Object> T execute(BackoffPolicy policy, BackoffListener listener, BackoffTask<T> task)
			throws Throwable {
		long start = (policy.getMaxElapsed() != null) ? this.clock.nanoTime() : 0;
		T result;
		try {
			result = task.run();
		}
		catch (Throwable ex) {
			return retry(new CallState(policy, listener, this.clock, this.randomSource, start), task, ex, null);
		}
		if (policy.isRetryableResult(result)) {
			return retry(new CallState(policy, listener, this.clock, this.randomSource, start), task, null, result);
		}
		// The hot path: no state, no allocation.
		listener.onSuccess(Outcome.SUCCESS, 1);
		return result;
	}

	/**
	 * Continues a call whose first attempt failed or asked for a retry.
	 */
	@SuppressWarnings("unchecked")
	private <T extends @Nullable Object> T retry(CallState state, BackoffTask<T> task, @Nullable Throwable failure,
			@Nullable Object result) throws Throwable {
		@Nullable Object last = result;
		state.attempts = 1;
		for (;;) {
			if (failure instanceof InterruptedException) {
				throw state.fail(Outcome.INTERRUPTED, failure);
			}
			Duration delay = state.nextDelay(failure);
			if (delay == null) {
				return end(state, failure, (T) last);
			}
			try {
				this.sleeper.sleep(delay);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				if (failure != null) {
					failure.addSuppressed(ex);
				}
				state.outcome = Outcome.INTERRUPTED;
				return end(state, failure, (T) last);
			}
			state.attempts++;
			try {
				last = task.run();
				failure = null;
			}
			catch (Throwable ex) {
				failure = ex;
				continue;
			}
			if (!state.policy.isRetryableResult(last)) {
				state.succeed();
				return (T) last;
			}
		}
	}

	/**
	 * Throws any failure as it is: the compiler is told it is an {@code E}, so a checked
	 * exception reaches the caller unwrapped.
	 */
	@SuppressWarnings("unchecked")
	private static <E extends Throwable> E rethrow(Throwable failure) throws E {
		throw (E) failure;
	}

	private static <T extends @Nullable Object> T end(CallState state, @Nullable Throwable failure, T last)
			throws Throwable {
		Outcome outcome = Objects.requireNonNull(state.outcome);
		if (failure != null) {
			throw state.fail(outcome, failure);
		}
		state.fail(outcome, null);
		return last;
	}

	/**
	 * Runs asynchronous work under {@code policy} without blocking any thread: the first attempt
	 * starts on the calling thread, each wait is scheduled on {@code scheduler}, and each later
	 * attempt starts there. Cancelling the returned future cancels the pending retry and the
	 * attempt in flight; no later attempt starts.
	 * @param <T> the result type
	 * @param policy the policy
	 * @param listener receives this call's events
	 * @param task starts one attempt; a failure may be thrown or returned as a failed stage
	 * @param scheduler runs the waits and the attempts after the first
	 * @return a future completed with the first successful result, or the last attempt's
	 * original failure (never a {@code CompletionException} wrapping it)
	 */
	public <T extends @Nullable Object> CompletableFuture<T> executeAsync(BackoffPolicy policy,
			BackoffListener listener, Supplier<? extends CompletionStage<T>> task, ScheduledExecutorService scheduler) {
		long start = (policy.getMaxElapsed() != null) ? this.clock.nanoTime() : 0;
		AsyncCall<T> call = new AsyncCall<>(new CallState(policy, listener, this.clock, this.randomSource, start),
				task, scheduler);
		call.run();
		return call;
	}

	/**
	 * Runs asynchronous work under {@code policy}, reporting to this executor's listener.
	 * @param <T> the result type
	 * @param policy the policy
	 * @param task starts one attempt
	 * @param scheduler runs the waits and the attempts after the first
	 * @return a future of the result
	 * @see #executeAsync(BackoffPolicy, BackoffListener, Supplier, ScheduledExecutorService)
	 */
	public <T extends @Nullable Object> CompletableFuture<T> executeAsync(BackoffPolicy policy,
			Supplier<? extends CompletionStage<T>> task, ScheduledExecutorService scheduler) {
		return executeAsync(policy, this.listener, task, scheduler);
	}

	/**
	 * Builds a {@link BackoffExecutor}.
	 */
	public static final class Builder {

		private Sleeper sleeper = Sleeper.THREAD;

		private NanoClock clock = NanoClock.SYSTEM;

		private RandomSource randomSource = RandomSource.THREAD_LOCAL;

		private BackoffListener listener = BackoffListener.NONE;

		private Builder() {
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
