package dev.backoff.sample.contention;

/**
 * A contention experiment is already running: runs would share the row and the threads.
 */
public class ExperimentRunningException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	public ExperimentRunningException() {
		super("A contention experiment is already running; try again when it ends");
	}

}
