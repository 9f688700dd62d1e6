package dev.backoff.spring.observation;

import java.time.Duration;
import java.util.Locale;

import dev.backoff.spring.operation.BackoffOperation;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The context of a {@code backoff.attempt} observation: one attempt of a call, whose
 * {@code backoff.call} observation is its parent.
 */
public class BackoffAttemptObservationContext extends Observation.Context {

	private final BackoffOperation operation;

	private final int attempt;

	private @Nullable AttemptOutcome outcome;

	private @Nullable Throwable failure;

	private @Nullable Duration delay;

	/**
	 * @param operation the method called and its effective policy
	 * @param attempt the attempt's number, from 1
	 */
	public BackoffAttemptObservationContext(BackoffOperation operation, int attempt) {
		this.operation = operation;
		this.attempt = attempt;
	}

	/** @return the method called and its effective policy */
	public BackoffOperation getOperation() {
		return this.operation;
	}

	/** @return the attempt's number, from 1 */
	public int getAttempt() {
		return this.attempt;
	}

	/** @return how the attempt ended, or {@code null} while it goes on */
	public @Nullable AttemptOutcome getOutcome() {
		return this.outcome;
	}

	/** @param outcome how the attempt ended */
	public void setOutcome(@Nullable AttemptOutcome outcome) {
		this.outcome = outcome;
	}

	/**
	 * @return the attempt's failure, or {@code null} when it had none (it succeeded, or its
	 * result asked for a retry)
	 */
	public @Nullable Throwable getFailure() {
		return this.failure;
	}

	/** @param failure the attempt's failure */
	public void setFailure(@Nullable Throwable failure) {
		this.failure = failure;
	}

	/** @return the wait before the next attempt, or {@code null} when none follows */
	public @Nullable Duration getDelay() {
		return this.delay;
	}

	/** @param delay the wait before the next attempt */
	public void setDelay(@Nullable Duration delay) {
		this.delay = delay;
	}

	/**
	 * How an attempt ended, from the call's point of view.
	 */
	public enum AttemptOutcome {

		/** It succeeded and the call ended with its result. */
		SUCCESS,

		/** It failed (or its result asked for a retry) and a retry follows. */
		RETRIED,

		/**
		 * It failed (or its result asked for a retry) and no retry followed it: the call ended
		 * after it, or another copy of a hedged call was still running.
		 */
		FAILED,

		/** A copy of a hedged call, cancelled when another answered or the call ended. */
		CANCELLED;

		private final String keyValue = name().toLowerCase(Locale.ROOT);

		/** @return the lower-case name used as a key value, e.g. {@code retried} */
		public String keyValue() {
			return this.keyValue;
		}

	}

}
