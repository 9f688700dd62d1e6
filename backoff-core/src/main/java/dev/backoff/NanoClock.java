package dev.backoff;

/**
 * A monotonic time source in nanoseconds, like {@link System#nanoTime()}. Injected into
 * {@link BackoffExecutor} so that {@code maxElapsed} can be tested without waiting.
 */
@FunctionalInterface
public interface NanoClock {

	/** Reads {@link System#nanoTime()}. */
	NanoClock SYSTEM = System::nanoTime;

	/**
	 * @return the current value of a monotonic clock; only differences between two readings
	 * are meaningful
	 */
	long nanoTime();

}
