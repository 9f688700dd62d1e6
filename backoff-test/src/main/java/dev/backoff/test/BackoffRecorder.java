package dev.backoff.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.Outcome;
import dev.backoff.spring.operation.BackoffListenerFactory;
import dev.backoff.spring.operation.BackoffOperation;
import org.jspecify.annotations.Nullable;

/**
 * Records every {@code @Backoff} call of a context: its policy, method, each attempt's failure,
 * each wait, the waits a server's {@code Retry-After} set, and the outcome. A bean under {@link InstantBackoff}, reset before each
 * test method; usable without Spring through {@link #listener}. Calls of one method are
 * recorded in the order they end; calls of one method made concurrently may mix their retries.
 */
public class BackoffRecorder implements BackoffListenerFactory {

	private final List<RecordedCall> calls = new ArrayList<>();

	/** The retries so far of the call under way, by method. */
	private final Map<String, OpenCall> open = new HashMap<>();

	@Override
	public BackoffListener create(BackoffOperation operation) {
		return listener(operation.getPolicyName(), operation.getMethodTag(), operation.getPolicy());
	}

	/**
	 * A listener that records into this recorder, for a {@code BackoffExecutor} used without Spring.
	 * @param policyName the name to record
	 * @param method the method to record, {@code SimpleClassName.methodName}
	 * @param policy the policy the calls run under
	 * @return the listener
	 */
	public BackoffListener listener(String policyName, String method, BackoffPolicy policy) {
		return new BackoffListener() {

			@Override
			public void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
				retried(method, failure, delay);
			}

			@Override
			public void onRetryAfter(int attempt, Duration hint) {
				hinted(method, attempt, hint);
			}

			@Override
			public void onSuccess(Outcome outcome, int attempts) {
				ended(policyName, method, policy, outcome, attempts, null);
			}

			@Override
			public void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
				ended(policyName, method, policy, outcome, attempts, failure);
			}

		};
	}

	private synchronized void retried(String method, @Nullable Throwable failure, Duration delay) {
		OpenCall call = this.open.computeIfAbsent(method, (key) -> new OpenCall());
		call.failures.add(failure);
		call.waits.add(delay);
	}

	private synchronized void hinted(String method, int attempt, Duration hint) {
		this.open.computeIfAbsent(method, (key) -> new OpenCall()).retryAfter.put(attempt, hint);
	}

	private synchronized void ended(String policyName, String method, BackoffPolicy policy, Outcome outcome,
			int attempts, @Nullable Throwable failure) {
		OpenCall call = this.open.remove(method);
		List<@Nullable Throwable> failures = (call != null) ? call.failures : new ArrayList<>();
		if (failure != null) {
			failures.add(failure);
		}
		// Not List.copyOf: a retry asked for by a result has no failure, recorded as null.
		this.calls.add(new RecordedCall(policyName, method, policy, Collections.unmodifiableList(failures),
				(call != null) ? List.copyOf(call.waits) : List.of(), outcome, attempts,
				(call != null) ? Collections.unmodifiableSortedMap(call.retryAfter) : Collections.emptySortedMap()));
	}

	/** @return every call recorded since the last {@link #reset()}, in the order they ended */
	public synchronized List<RecordedCall> calls() {
		return List.copyOf(this.calls);
	}

	/**
	 * @param method {@code SimpleClassName.methodName}
	 * @return the calls of that method, in the order they ended
	 */
	public synchronized List<RecordedCall> calls(String method) {
		return this.calls.stream().filter((call) -> call.method().equals(method)).toList();
	}

	/** Forgets every call; done before each test method under {@link InstantBackoff}. */
	public synchronized void reset() {
		this.calls.clear();
		this.open.clear();
	}

	private static final class OpenCall {

		private final List<@Nullable Throwable> failures = new ArrayList<>();

		private final List<Duration> waits = new ArrayList<>();

		/** The hint of each retry that a server's Retry-After set, by retry. */
		private final SortedMap<Integer, Duration> retryAfter = new TreeMap<>();

	}

}
