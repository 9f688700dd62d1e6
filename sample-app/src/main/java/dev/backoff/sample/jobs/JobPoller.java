package dev.backoff.sample.jobs;

import dev.backoff.Backoff;

import org.springframework.stereotype.Component;

/**
 * Waits for a job by polling it under the {@code polling} policy: a result-based retry, again
 * while the job is not ready. When the policy's attempts run out, the last status (still
 * {@code NOT_READY}) is returned rather than thrown.
 */
@Component
public class JobPoller {

	private final Jobs jobs;

	public JobPoller(Jobs jobs) {
		this.jobs = jobs;
	}

	/**
	 * @param id the job's id
	 * @return the first {@code READY} status, or the last {@code NOT_READY} one
	 * @throws UnknownJobException at once, if there is no such job
	 */
	// status is an enum: SpEL's == does not convert an enum to a String, so a bare
	// "#result.status == 'NOT_READY'" would always be false and never poll again. Compare its name.
	@Backoff(value = "polling", retryIf = "#result.status.name() == 'NOT_READY'")
	public JobStatus awaitResult(String id) {
		return this.jobs.poll(id);
	}

}
