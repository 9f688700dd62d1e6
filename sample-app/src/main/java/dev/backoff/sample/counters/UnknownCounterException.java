package dev.backoff.sample.counters;

/**
 * No counter has the id asked for.
 */
public class UnknownCounterException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	public UnknownCounterException(long id) {
		super("No counter " + id);
	}

}
