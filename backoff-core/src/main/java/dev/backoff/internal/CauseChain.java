package dev.backoff.internal;

import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * Walks a failure's cause chain, the way every classification in Backoff reads a failure: the
 * failure itself, then its cause, and so on to the end of the chain, however deep. A cause
 * cycle ends the walk once it is found (Brent's algorithm: no allocation, each link read at
 * most a few times), and a {@code getCause()} that throws ends it there, so that no failure
 * can hang the caller or cost it its retries.
 */
public final class CauseChain {

	private CauseChain() {
	}

	/**
	 * @param <T> what the probe finds
	 * @param failure where the walk starts
	 * @param probe asked of each failure along the chain; {@code null} to go on
	 * @return the first answer of the probe that is not {@code null}, or {@code null}
	 */
	public static <T> @Nullable T first(Throwable failure, Function<Throwable, ? extends @Nullable T> probe) {
		Throwable current = failure;
		Throwable mark = failure;
		int power = 1;
		int steps = 0;
		while (current != null) {
			T found = probe.apply(current);
			if (found != null) {
				return found;
			}
			current = causeOf(current);
			if (current == mark) {
				return null;
			}
			if (++steps == power) {
				// Brent: move the mark to where we are, and look twice as far for it to come round.
				mark = current;
				power <<= 1;
				steps = 0;
			}
		}
		return null;
	}

	private static @Nullable Throwable causeOf(Throwable failure) {
		try {
			return failure.getCause();
		}
		catch (RuntimeException | LinkageError ex) {
			// A broken getCause() ends the chain: the failure itself still counts.
			return null;
		}
	}

}
