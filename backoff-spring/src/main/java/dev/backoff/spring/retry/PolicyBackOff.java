package dev.backoff.spring.retry;

import java.time.Duration;

import dev.backoff.BackoffCall;
import dev.backoff.Outcome;
import dev.backoff.spring.operation.BackoffOperation;
import org.jspecify.annotations.Nullable;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * A named policy as Spring's {@link BackOff}: each {@link #start()} is one retry cycle (a
 * record's redeliveries, a {@code RetryTemplate} call), a {@link Cycle} that draws the policy's
 * waits (decorrelated jitter keeps its state there) and stops by itself, with
 * {@link BackOffExecution#STOP}, when the policy's attempts, its max-elapsed or its retry
 * budget run out, so that the integration hands the failure to its recoverer. A cycle starts
 * under the policy in force then: a live change applies to the cycles that start after it.
 * Each cycle reports to the operation's meters as a method's call does ({@code backoff.retries},
 * {@code backoff.delay}, and {@code backoff.calls} when it ends).
 */
public final class PolicyBackOff implements BackOff {

	private final BackoffOperation operation;

	PolicyBackOff(BackoffOperation operation) {
		this.operation = operation;
	}

	/** @return the operation whose policy, budget and meters the cycles use */
	public BackoffOperation getOperation() {
		return this.operation;
	}

	@Override
	public Cycle start() {
		return new Cycle(this.operation.startCall());
	}

	/**
	 * Reports a delivery or call that succeeded at once, which started no cycle: the budget
	 * gets its share back and {@code backoff.calls{outcome=success}} counts it.
	 */
	public void succeededAtOnce() {
		this.operation.succeededAtOnce();
	}

	@Override
	public String toString() {
		return "PolicyBackOff[" + this.operation.getPolicyName() + " as " + this.operation.getMethodTag() + "]";
	}

	/**
	 * One retry cycle. Each {@link #nextBackOff()} follows one failed attempt: the first call
	 * follows the first delivery's failure. An integration that knows the failure tells it
	 * first ({@link #failed}), so that the policy's {@code retry-on} and {@code abort-on} apply
	 * and the meters name it; and tells how the cycle ended when it ends in a success
	 * ({@link #succeeded}). A cycle that says {@link BackOffExecution#STOP} has ended already.
	 */
	public static final class Cycle implements BackOffExecution {

		/** What {@link #nextBackOffUnlessRefused()} returns when the budget refused the retry: the cycle is still open. */
		public static final long REFUSED = -2;

		private final BackoffCall call;

		private @Nullable Throwable failure;

		Cycle(BackoffCall call) {
			this.call = call;
		}

		/** @param failure the failure of the attempt that the next {@link #nextBackOff()} follows */
		public void failed(Throwable failure) {
			this.failure = failure;
		}

		@Override
		public long nextBackOff() {
			return next(false);
		}

		/**
		 * As {@link #nextBackOff()}, except when the policy's retry budget refuses the retry:
		 * then the cycle stays open and this returns {@link #REFUSED}, for an integration that
		 * holds the work back until the downstream recovers (a Kafka listener's outage), and ends
		 * the cycle later with {@link #succeeded}, or by asking again.
		 * @return the wait in milliseconds, {@link BackOffExecution#STOP}, or {@link #REFUSED}
		 */
		public long nextBackOffUnlessRefused() {
			return next(true);
		}

		private long next(boolean holdWhenRefused) {
			if (this.call.isEnded()) {
				return STOP;
			}
			this.call.beginAttempt();
			Throwable failure = this.failure;
			this.failure = null;
			Duration delay = this.call.nextDelay(failure);
			if (delay == null) {
				if (holdWhenRefused && this.call.getOutcome() == Outcome.BUDGET_EXHAUSTED) {
					return REFUSED;
				}
				this.call.end(failure);
				return STOP;
			}
			return delay.toMillis();
		}

		/** Reports that the attempt after the last wait succeeded: the cycle ends in {@code success_after_retry}. */
		public void succeeded() {
			this.call.beginAttempt();
			this.call.succeed();
		}

		/**
		 * Reports that the cycle ended before the policy said so: its wait was interrupted, or
		 * the integration gave up by its own rule. Ends it with {@code interrupted}.
		 * @param failure the last failure, or {@code null}
		 */
		public void interrupted(@Nullable Throwable failure) {
			this.call.interrupt(failure);
		}

		/** @return the attempts so far, the first delivery included, once {@link #nextBackOff()} has followed it */
		public int getAttempts() {
			return this.call.getAttempts();
		}

		/** @return whether the cycle has ended, and its outcome reported */
		public boolean isEnded() {
			return this.call.isEnded();
		}

	}

}
