package dev.backoff.internal;

import java.time.Duration;

/**
 * Writes a configured duration the way {@code application.yml} does ({@code 250ms}, {@code 2s}),
 * for messages that a user compares with their configuration.
 */
public final class Durations {

	private static final String[] SUFFIXES = { "d", "h", "m", "s", "ms", "us", "ns" };

	private static final long[] NANOS = { 86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L,
			1_000_000L, 1_000L, 1L };

	private Durations() {
	}

	/**
	 * @param duration a duration of at most {@link Long#MAX_VALUE} nanoseconds
	 * @return it in the largest unit that holds it exactly, e.g. {@code 1500ms}, {@code 2s};
	 * {@link Duration#toString()} for a negative or longer one
	 */
	public static String format(Duration duration) {
		if (duration.isZero()) {
			return "0ms";
		}
		long nanos;
		try {
			nanos = duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return duration.toString();
		}
		if (nanos < 0) {
			return duration.toString();
		}
		for (int i = 0; i < NANOS.length; i++) {
			if (nanos % NANOS[i] == 0) {
				return (nanos / NANOS[i]) + SUFFIXES[i];
			}
		}
		return nanos + "ns";
	}

}
