package dev.backoff.spring.config;

import java.time.Duration;

import dev.backoff.internal.Durations;

import org.springframework.format.datetime.standard.DurationFormatterUtils;

/**
 * Reads and writes durations the way {@code application.yml} does ({@code 250ms}, {@code 2s},
 * {@code PT0.5S}), so that annotation attributes, error messages and the Actuator endpoint
 * speak the same language as the YAML.
 */
public final class DurationFormat {

	private DurationFormat() {
	}

	/**
	 * @param text a duration such as {@code 250ms}; a bare number is milliseconds
	 * @return the duration
	 * @throws IllegalArgumentException if the text is not a duration, or has no number in it
	 */
	public static Duration parse(String text) {
		String trimmed = text.trim();
		if (trimmed.chars().noneMatch(Character::isDigit)) {
			// Framework's parser reads "-", "ms" or "()" as zero; Boot's refuses them, and so do we.
			throw new IllegalArgumentException("'" + text + "' has no number, so it is no duration");
		}
		return DurationFormatterUtils.detectAndParse(trimmed,
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
		return Durations.format(duration);
	}

}
