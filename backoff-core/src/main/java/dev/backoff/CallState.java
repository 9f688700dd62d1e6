package dev.backoff;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The state of one call after its first failed attempt, shared by the blocking and the
 * non-blocking executor so that both decide the same way. Created lazily: a call whose first
 * attempt succeeds never allocates one.
 */
final class CallState {

	/** Earlier failures kept to attach as suppressed to the one the caller gets. */
	static final int MAX_SUPPRESSED = 8;

	final BackoffPolicy policy;

	private final BackoffListener listener;

	private final NanoClock clock;

	private final RandomSource randomSource;

	private final long startNanos;

	private @Nullable BackoffDelays delays;

	private final Throwable[] earlier = new Throwable[MAX_SUPPRESSED];

	private int earlierCount;

	int attempts;

	@Nullable Outcome outcome;

	CallState(BackoffPolicy policy, BackoffListener listener, NanoClock clock, RandomSource randomSource,
			long startNanos) {
		this.policy = policy;
		this.listener = listener;
		this.clock = clock;
		this.randomSource = randomSource;
		this.startNanos = startNanos;
	}

	/**
	 * Decides what follows a failed attempt ({@code failure} set) or an attempt whose result
	 * asked for a retry ({@code failure} null): the wait before the next attempt, reported to
	 * the listener, or {@code null} with {@link #outcome} set when the call ends here.
	 */
	@Nullable Duration nextDelay(@Nullable Throwable failure) {
		if (failure != null && !this.policy.isRetryable(failure)) {
			return stop(Outcome.NOT_RETRYABLE);
		}
		if (this.attempts >= this.policy.getMaxAttempts()) {
			return stop(Outcome.EXHAUSTED);
		}
		long delay = delays().nextNanos();
		Duration maxElapsed = this.policy.getMaxElapsed();
		if (maxElapsed != null) {
			long elapsed = this.clock.nanoTime() - this.startNanos;
			// Compared by subtraction: elapsed + delay could overflow.
			if (delay > maxElapsed.toNanos() - elapsed) {
				return stop(Outcome.TIMED_OUT);
			}
		}
		if (failure != null) {
			remember(failure);
		}
		Duration wait = Duration.ofNanos(delay);
		this.listener.onRetryScheduled(this.attempts, wait, failure);
		return wait;
	}

	/**
	 * Ends the call without success: reports the outcome and returns the failure with the
	 * earlier ones attached as suppressed.
	 */
	<X extends @Nullable Throwable> X fail(Outcome outcome, X failure) {
		this.outcome = outcome;
		if (failure != null && this.earlierCount > 0) {
			// Bounded even when the caller throws one shared instance on every call.
			int room = MAX_SUPPRESSED - failure.getSuppressed().length;
			for (int i = 0; i < this.earlierCount && room > 0; i++) {
				if (this.earlier[i] != failure) {
					failure.addSuppressed(this.earlier[i]);
					room--;
				}
			}
		}
		this.listener.onFailure(outcome, this.attempts, failure);
		return failure;
	}

	/** Ends the call with a successful attempt. */
	void succeed() {
		this.outcome = (this.attempts == 1) ? Outcome.SUCCESS : Outcome.SUCCESS_AFTER_RETRY;
		this.listener.onSuccess(this.outcome, this.attempts);
	}

	private @Nullable Duration stop(Outcome outcome) {
		this.outcome = outcome;
		return null;
	}

	private BackoffDelays delays() {
		BackoffDelays delays = this.delays;
		if (delays == null) {
			delays = this.policy.delays(this.randomSource.generator());
			this.delays = delays;
		}
		return delays;
	}

	private void remember(Throwable failure) {
		// Keeps the first ones: they usually say how the trouble began.
		if (this.earlierCount < MAX_SUPPRESSED) {
			for (int i = 0; i < this.earlierCount; i++) {
				if (this.earlier[i] == failure) {
					return;
				}
			}
			this.earlier[this.earlierCount++] = failure;
		}
	}

}
