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
	 * @param duration a duration
	 * @return it in the largest unit that holds it exactly, e.g. {@code 1500ms}, {@code 20s};
	 * beyond about 292 years, whole days, hours, minutes or seconds, else {@link Duration#toString()}
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
			// Beyond ~292 years in nanoseconds: whole days, hours, minutes or seconds still read well.
			long seconds = duration.getSeconds();
			for (int i = 0; i < 4; i++) {
				long unitSeconds = NANOS[i] / 1_000_000_000L;
				if (duration.getNano() == 0 && seconds % unitSeconds == 0) {
					return (seconds / unitSeconds) + SUFFIXES[i];
				}
			}
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
