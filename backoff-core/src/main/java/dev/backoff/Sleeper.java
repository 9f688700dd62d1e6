package dev.backoff;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Waits between attempts. Injected into {@link BackoffExecutor} so that tests record the
 * waits instead of sleeping.
 */
@FunctionalInterface
public interface Sleeper {

	/** Sleeps the calling thread with {@link TimeUnit#sleep(long)}. */
	Sleeper THREAD = (delay) -> TimeUnit.NANOSECONDS.sleep(delay.toNanos());

	/**
	 * Returns at once, whatever the delay: for tests, which then run every retry without waiting
	 * (non-blocking integrations that schedule waits themselves wait for nothing either).
	 * Production code must not use it: retries that do not wait are a retry storm.
	 */
	Sleeper INSTANT = (delay) -> {
	};

	/**
	 * Waits for the given delay.
	 * @param delay the wait, zero or positive
	 * @throws InterruptedException if the thread is interrupted while waiting; the executor
	 * then restores the interrupt flag and stops retrying
	 */
	void sleep(Duration delay) throws InterruptedException;

}
