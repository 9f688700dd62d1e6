package dev.backoff.spring.data;

/**
 * How a policy classifies data-access failures where {@code retry-on} and
 * {@code retry-on-exception} are not set: the {@code retry-on-data-access} setting.
 */
public enum DataAccessRetry {

	/** As any other exception: the default classification decides (every {@link Exception}). */
	ANY,

	/**
	 * Only the transient ones, by {@link DataAccessFailures#transientCause}: a pool time-out, a
	 * lock or serialization failure, a lost connection. Any other data-access failure (a
	 * constraint violation, bad SQL) is not retried.
	 */
	TRANSIENT

}
