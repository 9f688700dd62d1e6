package dev.backoff;

/**
 * What a call does when it starts inside an attempt of another retrying call (one whose
 * policy allows more than one attempt), on the same thread, or along the same asynchronous
 * or reactive chain where the integration can tell.
 */
public enum Nested {

	/**
	 * Only the outermost call retries: a nested call makes a single attempt when the enclosing
	 * call's policy would retry its failure, and ends with {@link Outcome#NESTED}, so that three
	 * levels of 3 attempts cost at most 3 calls, not 27. A failure the enclosing policy would
	 * not retry, and a result that asks for a retry, are still retried where they happen.
	 */
	OUTERMOST,

	/** Every call retries under its own policy, whatever encloses it. */
	INDEPENDENT

}
