package dev.backoff.sample.jobs;

/**
 * Where an asynchronous job is.
 */
public enum JobState {

	/** Still running: poll again later. */
	NOT_READY,

	/** Done: its result is available. */
	READY

}
