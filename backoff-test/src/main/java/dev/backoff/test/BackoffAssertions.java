package dev.backoff.test;

import java.time.Duration;
import java.util.List;

import dev.backoff.BackoffPolicy;
import dev.backoff.BackoffSchedule;
import dev.backoff.Outcome;
import org.assertj.core.api.AbstractObjectAssert;
import org.assertj.core.api.Assertions;
import org.jspecify.annotations.Nullable;

/**
 * AssertJ assertions on what a {@link BackoffRecorder} saw:
 * <pre class="code">
 * assertThat(recorder).method("QuoteClient.fetch").hasCalls(1)
 *     .lastCall().endedWith(Outcome.SUCCESS_AFTER_RETRY).madeAttempts(3).waitedWithinCeilings();
 * </pre>
 */
public final class BackoffAssertions {

	private BackoffAssertions() {
	}

	/**
	 * @param recorder the recorder
	 * @return assertions on its calls
	 */
	public static RecorderAssert assertThat(BackoffRecorder recorder) {
		return new RecorderAssert(recorder, null);
	}

	/**
	 * @param call a recorded call
	 * @return assertions on it
	 */
	public static CallAssert assertThat(RecordedCall call) {
		return new CallAssert(call);
	}

	/** Assertions on the calls of a recorder, or of one of its methods. */
	public static final class RecorderAssert extends AbstractObjectAssert<RecorderAssert, BackoffRecorder> {

		private final @org.jspecify.annotations.Nullable String method;

		RecorderAssert(BackoffRecorder recorder, @org.jspecify.annotations.Nullable String method) {
			super(recorder, RecorderAssert.class);
			this.method = method;
		}

		/**
		 * @param method {@code SimpleClassName.methodName}
		 * @return assertions on that method's calls only
		 */
		public RecorderAssert method(String method) {
			return new RecorderAssert(this.actual, method);
		}

		/**
		 * @param count the number of calls expected
		 * @return this
		 */
		public RecorderAssert hasCalls(int count) {
			isNotNull();
			List<RecordedCall> calls = calls();
			if (calls.size() != count) {
				failWithMessage("Expected %d @Backoff calls%s but recorded %d: %s", count, of(), calls.size(), calls);
			}
			return this;
		}

		/** @return assertions on the call that ended last */
		public CallAssert lastCall() {
			isNotNull();
			List<RecordedCall> calls = calls();
			if (calls.isEmpty()) {
				failWithMessage("Expected a @Backoff call%s but recorded none", of());
			}
			return new CallAssert(calls.get(calls.size() - 1));
		}

		private List<RecordedCall> calls() {
			return (this.method != null) ? this.actual.calls(this.method) : this.actual.calls();
		}

		private String of() {
			return (this.method != null) ? " of " + this.method : "";
		}

	}

	/** Assertions on one recorded call. */
	public static final class CallAssert extends AbstractObjectAssert<CallAssert, RecordedCall> {

		CallAssert(RecordedCall call) {
			super(call, CallAssert.class);
		}

		/**
		 * @param outcome the outcome expected
		 * @return this
		 */
		public CallAssert endedWith(Outcome outcome) {
			if (this.actual.outcome() != outcome) {
				failWithMessage("Expected %s to end with %s but it ended with %s", this.actual.method(), outcome,
						this.actual.outcome());
			}
			return this;
		}

		/**
		 * @param attempts the attempts expected, the first included
		 * @return this
		 */
		public CallAssert madeAttempts(int attempts) {
			if (this.actual.attempts() != attempts) {
				failWithMessage("Expected %s to make %d attempts but it made %d", this.actual.method(), attempts,
						this.actual.attempts());
			}
			return this;
		}

		/**
		 * @param waits the waits expected before each retry, in order
		 * @return this
		 */
		public CallAssert waited(Duration... waits) {
			Assertions.assertThat(this.actual.waits()).as("waits of %s", this.actual.method()).containsExactly(waits);
			return this;
		}

		/**
		 * @param hints the waits a server's {@code Retry-After} set, in order, the retries whose
		 * wait the policy set left out
		 * @return this
		 */
		public CallAssert honouredRetryAfter(Duration... hints) {
			Assertions.assertThat(this.actual.retryAfter().values())
				.as("Retry-After waits of %s", this.actual.method())
				.containsExactly(hints);
			return this;
		}

		/**
		 * Checks each wait against its retry's longest possible delay under the call's policy:
		 * the ceiling {@code v(n)}, or for decorrelated jitter {@code min(maxDelay, baseDelay × 3^n)},
		 * of the schedule the retry drew from: the throttling schedule after a failure the
		 * policy classifies as throttling, when it has one. A wait that a server's
		 * {@code Retry-After} set ({@link RecordedCall#retryAfter}) is judged against the
		 * policy's {@code max-retry-after} instead.
		 * @return this
		 */
		public CallAssert waitedWithinCeilings() {
			BackoffPolicy policy = this.actual.policy();
			List<Duration> waits = this.actual.waits();
			List<@Nullable Throwable> failures = this.actual.failures();
			for (int retry = 1; retry <= waits.size(); retry++) {
				Duration wait = waits.get(retry - 1);
				if (this.actual.retryAfter().containsKey(retry)) {
					if (wait.compareTo(policy.getMaxRetryAfter()) > 0) {
						failWithMessage("Expected the Retry-After wait before retry %d of %s within max-retry-after %s but it was %s",
								retry, this.actual.method(), policy.getMaxRetryAfter(), wait);
					}
					continue;
				}
				Throwable failure = (retry <= failures.size()) ? failures.get(retry - 1) : null;
				BackoffSchedule schedule = schedule(policy, failure);
				Duration longest = schedule.longestDelay(retry);
				if (wait.isNegative() || wait.compareTo(longest) > 0) {
					failWithMessage("Expected the wait before retry %d of %s within [0, %s] (%s schedule) but it was %s",
							retry, this.actual.method(), longest,
							(schedule != policy.getSchedule()) ? "throttling" : "normal", wait);
				}
			}
			return this;
		}

		/** The schedule a retry after {@code failure} draws from, as the executor chooses it. */
		private static BackoffSchedule schedule(BackoffPolicy policy, @Nullable Throwable failure) {
			BackoffSchedule throttling = policy.getSchedule().getThrottling();
			if (throttling == null || failure == null) {
				return policy.getSchedule();
			}
			try {
				return policy.getRules().isThrottled(failure) ? throttling : policy.getSchedule();
			}
			catch (RuntimeException ex) {
				// As the executor: a predicate that throws says the failure is not throttling.
				return policy.getSchedule();
			}
		}

	}

}
