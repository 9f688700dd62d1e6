package dev.backoff.test;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;

import dev.backoff.BackoffPolicy;
import dev.backoff.Outcome;
import org.jspecify.annotations.Nullable;

/**
 * One {@code @Backoff} call as {@link BackoffRecorder} saw it.
 *
 * @param policyName the policy's name, {@code defaults} for {@code backoff.defaults}
 * @param method {@code SimpleClassName.methodName}, as the meters tag it
 * @param policy the effective policy of the method
 * @param failures the failure of each attempt that was retried ({@code null} where a result
 * asked for the retry), then the failure the call ended with, if any
 * @param waits the wait computed before each retry, in order (none was really waited under
 * {@link InstantBackoff})
 * @param outcome how the call ended
 * @param attempts the attempts made, the first included
 * @param retryAfter by retry (1 for the wait after the first attempt), the wait a server's
 * {@code Retry-After} asked for where it set the wait, being longer than the policy's own
 * (its entry in {@code waits} is then that hint)
 */
public record RecordedCall(String policyName, String method, BackoffPolicy policy, List<@Nullable Throwable> failures,
		List<Duration> waits, Outcome outcome, int attempts, SortedMap<Integer, Duration> retryAfter) {

	/**
	 * A call none of whose waits a server's {@code Retry-After} set.
	 * @param policyName the policy's name
	 * @param method {@code SimpleClassName.methodName}
	 * @param policy the effective policy of the method
	 * @param failures the failures, as for the canonical constructor
	 * @param waits the wait before each retry
	 * @param outcome how the call ended
	 * @param attempts the attempts made
	 */
	public RecordedCall(String policyName, String method, BackoffPolicy policy, List<@Nullable Throwable> failures,
			List<Duration> waits, Outcome outcome, int attempts) {
		this(policyName, method, policy, failures, waits, outcome, attempts, Collections.emptySortedMap());
	}

}
