package dev.backoff.sample.jobs;

/**
 * No job has the id asked for. Never retried: waiting does not make a job exist.
 */
public class UnknownJobException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	public UnknownJobException(String id) {
		super("No job " + id);
	}

}
