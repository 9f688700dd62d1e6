package dev.backoff.sample.counters;

import org.springframework.dao.OptimisticLockingFailureException;

/**
 * A write lost the race: the row's version was no longer the one read, because another
 * writer committed in between. Worth retrying: the next attempt re-reads the row.
 */
public class OptimisticConflictException extends OptimisticLockingFailureException {

	private static final long serialVersionUID = 1L;

	public OptimisticConflictException(long id, long readVersion) {
		super("Counter " + id + " changed since version " + readVersion + " was read");
	}

}
