package dev.backoff.rewrite;

/**
 * Durations written as Backoff's string attributes read them ({@code 1s},
 * {@code 1500ms}, {@code 2m}): in the largest unit that holds the value exactly.
 */
final class Durations {

	private static final String[] SUFFIXES = { "d", "h", "m", "s", "ms", "us", "ns" };

	private static final long[] NANOS = { 86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L,
			1_000_000_000L, 1_000_000L, 1_000L, 1L };

	private Durations() {
	}

	static String format(long millis) {
		return formatNanos(Math.multiplyExact(millis, 1_000_000L));
	}

	static String formatNanos(long nanos) {
		if (nanos == 0) {
			return "0ms";
		}
		for (int i = 0; i < NANOS.length; i++) {
			if (nanos % NANOS[i] == 0) {
				return (nanos / NANOS[i]) + SUFFIXES[i];
			}
		}
		throw new IllegalStateException("unreachable");
	}

	/** A multiplier as written in the annotation: {@code 2}, {@code 1.5}. */
	static String number(double value) {
		return (value == Math.rint(value) && Math.abs(value) < 1e15) ? Long.toString((long) value)
				: Double.toString(value);
	}

}
