package dev.backoff;

import org.jspecify.annotations.Nullable;

/**
 * The policy of the retrying call whose attempt is running on this thread, if any: how a call
 * learns that it is nested (see {@link Nested}), and that attempt's number
 * ({@link CurrentAttempt}). One mutable holder per thread, so that marking an attempt costs one
 * {@link ThreadLocal#get()} and a few field writes, no allocation.
 */
final class Enclosing {

	private static final ThreadLocal<Enclosing> CURRENT = ThreadLocal.withInitial(Enclosing::new);

	@Nullable BackoffPolicy policy;

	/** The attempt running on this thread, 1 for a call's first; 0 outside any (see {@link CurrentAttempt}). */
	int attempt;

	private Enclosing() {
	}

	static Enclosing current() {
		return CURRENT.get();
	}

	/** Whether calls made from inside an attempt under {@code policy} count as nested. */
	static boolean encloses(BackoffPolicy policy) {
		return policy.getSchedule().getMaxAttempts() > 1;
	}

	/** See {@link BackoffExecutor#isLeftToEnclosing}. */
	static boolean isLeftToEnclosing(BackoffPolicy policy, @Nullable BackoffPolicy enclosing, Throwable failure) {
		if (enclosing == null) {
			return false;
		}
		try {
			return policy.getRules().isRetryable(failure) && enclosing.getRules().isRetryable(failure);
		}
		catch (RuntimeException ex) {
			// A predicate that throws retries nothing (see RuleCalls).
			return false;
		}
	}

}
