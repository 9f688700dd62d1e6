package dev.backoff.spring.operation;

import dev.backoff.BackoffListener;
import dev.backoff.BackoffTask;
import org.jspecify.annotations.Nullable;

/**
 * One call as a {@link CallObserver} observes it. The executor reports the call's events to
 * {@link #listener()}, which passes them on to the method's own listener, and each attempt
 * runs inside {@link #run}. Must not throw where the call would not.
 */
public interface ObservedCall {

	/** @return what the call reports its events to: the observation, then the method's own listener */
	BackoffListener listener();

	/**
	 * Starts the next attempt's observation.
	 * @return it, to pass to {@link #run} and to put in a reactive attempt's context under
	 * {@link CallObserver#contextKey()}; or {@code null} when the attempt is not observed
	 */
	@Nullable Object startAttempt();

	/**
	 * Runs an attempt with its observation current.
	 * @param attempt what {@link #startAttempt()} returned
	 * @param task the attempt
	 * @param <T> its result type
	 * @return the attempt's result
	 * @throws Throwable the attempt's failure, unchanged
	 */
	<T extends @Nullable Object> T run(@Nullable Object attempt, BackoffTask<T> task) throws Throwable;

	/**
	 * @param task an attempt
	 * @return it as an observed attempt
	 */
	default BackoffTask<@Nullable Object> wrap(BackoffTask<@Nullable Object> task) {
		return () -> run(startAttempt(), task);
	}

}
