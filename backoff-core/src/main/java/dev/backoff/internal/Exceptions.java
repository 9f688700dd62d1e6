package dev.backoff.internal;

/**
 * Rethrows a failure as it is, so that the caller of a retried method gets its original
 * exception, checked ones included, never wrapped.
 */
public final class Exceptions {

	private Exceptions() {
	}

	/**
	 * Throws {@code failure} unchanged: the compiler is told it is an {@code E}.
	 * @param <E> what the compiler is told
	 * @param failure the failure
	 * @return never returns; declared so that callers can write {@code throw rethrow(ex)}
	 * @throws E always: {@code failure} itself
	 */
	@SuppressWarnings("unchecked")
	public static <E extends Throwable> E rethrow(Throwable failure) throws E {
		throw (E) failure;
	}

}
