package dev.backoff.internal;

import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * Walks a failure's cause chain, the way every classification in Backoff reads a failure: the
 * failure itself, then its cause, and so on, at most {@value #MAX_DEPTH} deep and stopping at a
 * cause that is its own, so that a cause cycle cannot hang the caller.
 */
public final class CauseChain {

	/** How deep a walk goes. */
	public static final int MAX_DEPTH = 64;

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
		for (int depth = 0; current != null && depth < MAX_DEPTH; depth++) {
			T found = probe.apply(current);
			if (found != null) {
				return found;
			}
			Throwable cause = current.getCause();
			current = (cause != current) ? cause : null;
		}
		return null;
	}

}
