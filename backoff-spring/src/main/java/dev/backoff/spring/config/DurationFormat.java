package dev.backoff.spring.config;

import java.time.Duration;

import org.springframework.format.datetime.standard.DurationFormatterUtils;

/**
 * Reads and writes durations the way {@code application.yml} does ({@code 250ms}, {@code 2s},
 * {@code PT0.5S}), so that annotation attributes, error messages and the Actuator endpoint
 * speak the same language as the YAML.
 */
public final class DurationFormat {

	private static final String[] SUFFIXES = { "d", "h", "m", "s", "ms", "us", "ns" };

	private static final long[] NANOS = { 86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L,
			1_000_000L, 1_000L, 1L };

	private DurationFormat() {
	}

	/**
	 * @param text a duration such as {@code 250ms}; a bare number is milliseconds
	 * @return the duration
	 * @throws IllegalArgumentException if the text is not a duration
	 */
	public static Duration parse(String text) {
		return DurationFormatterUtils.detectAndParse(text.trim(),
				org.springframework.format.annotation.DurationFormat.Unit.MILLIS);
	}

	/**
	 * For drawn or computed durations (a jittered delay, a percentile): rounded to whole
	 * milliseconds from one millisecond up, to whole microseconds below, so that
	 * {@code 104761961ns} reads {@code 105ms}; still in a form {@link #parse} reads.
	 * @param duration a duration
	 * @return it rounded, in the largest unit that holds the rounded value exactly
	 */
	public static String formatRounded(Duration duration) {
		long nanos;
		try {
			nanos = duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return duration.toString();
		}
		long unit = (nanos >= 1_000_000L) ? 1_000_000L : (nanos >= 1_000L) ? 1_000L : 1L;
		long rounded = Math.round((double) nanos / unit) * unit;
		return format(Duration.ofNanos(rounded));
	}

	/**
	 * For configured durations, shown exactly as given.
	 * @param duration a duration
	 * @return it in the largest unit that holds it exactly, e.g. {@code 1500ms}, {@code 20s}
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
