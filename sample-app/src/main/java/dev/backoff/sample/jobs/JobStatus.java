package dev.backoff.sample.jobs;

import org.jspecify.annotations.Nullable;

/**
 * One poll's view of a job.
 * @param id the job's id
 * @param status where the job is
 * @param polls how many times the job has been polled, this poll included
 * @param result the job's result once {@link JobState#READY}, else {@code null}
 */
public record JobStatus(String id, JobState status, int polls, @Nullable String result) {
}
