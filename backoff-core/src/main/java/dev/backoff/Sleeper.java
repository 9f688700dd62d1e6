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
	 * Waits for the given delay.
	 * @param delay the wait, zero or positive
	 * @throws InterruptedException if the thread is interrupted while waiting; the executor
	 * then restores the interrupt flag and stops retrying
	 */
	void sleep(Duration delay) throws InterruptedException;

}
