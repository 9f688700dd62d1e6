package dev.backoff;

import org.jspecify.annotations.Nullable;

/**
 * The policy of the retrying call whose attempt is running on this thread, if any: how a call
 * learns that it is nested (see {@link Nested}). One mutable holder per thread, so that
 * marking an attempt costs one {@link ThreadLocal#get()} and two field writes, no allocation.
 */
final class Enclosing {

	private static final ThreadLocal<Enclosing> CURRENT = ThreadLocal.withInitial(Enclosing::new);

	@Nullable BackoffPolicy policy;

	private Enclosing() {
	}

	static Enclosing current() {
		return CURRENT.get();
	}

	/** Whether calls made from inside an attempt under {@code policy} count as nested. */
	static boolean encloses(BackoffPolicy policy) {
		return policy.getSchedule().getMaxAttempts() > 1;
	}

}
