package dev.backoff.sample.jobs;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import dev.backoff.sample.SampleProperties;

import org.springframework.stereotype.Component;

/**
 * Asynchronous jobs, standing in for a remote job service: a job started now becomes ready
 * after a number of polls, or once some time has passed. Kept in memory.
 */
@Component
public class Jobs {

	private final Map<String, Job> jobs = new ConcurrentHashMap<>();

	private final int defaultReadyAfterPolls;

	public Jobs(SampleProperties properties) {
		this.defaultReadyAfterPolls = properties.getJobs().getReadyAfterPolls();
	}

	/**
	 * Starts a job.
	 * @param readyAfterPolls the poll at which it is ready, from 1; {@code null} for
	 * {@code sample.jobs.ready-after-polls} unless {@code readyAfter} is given
	 * @param readyAfter the time after which it is ready, or {@code null}
	 * @return its status, before any poll
	 */
	public JobStatus start(@Nullable Integer readyAfterPolls, @Nullable Duration readyAfter) {
		if (readyAfterPolls != null && readyAfterPolls < 1) {
			throw new IllegalArgumentException("readyAfterPolls must be at least 1, but was " + readyAfterPolls);
		}
		if (readyAfter != null && readyAfter.isNegative()) {
			throw new IllegalArgumentException("readyAfter must not be negative, but was " + readyAfter);
		}
		int polls = (readyAfterPolls != null) ? readyAfterPolls
				: (readyAfter != null) ? Integer.MAX_VALUE : this.defaultReadyAfterPolls;
		long readyAtNanos = (readyAfter != null) ? System.nanoTime() + readyAfter.toNanos() : Long.MAX_VALUE;
		Job job = new Job(UUID.randomUUID().toString(), polls, readyAfter != null, readyAtNanos);
		this.jobs.put(job.id, job);
		return new JobStatus(job.id, JobState.NOT_READY, 0, null);
	}

	/**
	 * Polls a job once: the poll is counted, and may be the one that finds it ready.
	 * @param id the job's id
	 * @return its status
	 * @throws UnknownJobException if there is no such job
	 */
	public JobStatus poll(String id) {
		Job job = this.jobs.get(id);
		if (job == null) {
			throw new UnknownJobException(id);
		}
		int polls = job.polls.incrementAndGet();
		boolean ready = polls >= job.readyAfterPolls
				|| (job.timed && System.nanoTime() - job.readyAtNanos >= 0);
		return ready ? new JobStatus(id, JobState.READY, polls, "report-" + id + ".csv")
				: new JobStatus(id, JobState.NOT_READY, polls, null);
	}

	private static final class Job {

		final String id;

		final int readyAfterPolls;

		final boolean timed;

		final long readyAtNanos;

		final AtomicInteger polls = new AtomicInteger();

		Job(String id, int readyAfterPolls, boolean timed, long readyAtNanos) {
			this.id = id;
			this.readyAfterPolls = readyAfterPolls;
			this.timed = timed;
			this.readyAtNanos = readyAtNanos;
		}

	}

}
