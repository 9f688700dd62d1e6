package dev.backoff;

import org.jspecify.annotations.Nullable;

/**
 * One attempt of a call made under {@link BackoffExecutor#execute}: may throw anything, and
 * whatever it throws reaches the caller unchanged.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface BackoffTask<T extends @Nullable Object> {

	/**
	 * @return the result of this attempt
	 * @throws Throwable the failure of this attempt
	 */
	T run() throws Throwable;

}
