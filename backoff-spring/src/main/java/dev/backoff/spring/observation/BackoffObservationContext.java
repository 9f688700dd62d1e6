package dev.backoff.spring.observation;

import dev.backoff.Outcome;
import dev.backoff.spring.operation.BackoffOperation;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The context of a {@code backoff.call} observation: one call of a {@code @Backoff} method.
 */
public class BackoffObservationContext extends Observation.Context {

	private final BackoffOperation operation;

	private @Nullable Outcome outcome;

	private int attempts;

	/**
	 * @param operation the method called and its effective policy
	 */
	public BackoffObservationContext(BackoffOperation operation) {
		this.operation = operation;
	}

	/** @return the method called and its effective policy */
	public BackoffOperation getOperation() {
		return this.operation;
	}

	/** @return how the call ended, or {@code null} while it goes on */
	public @Nullable Outcome getOutcome() {
		return this.outcome;
	}

	/** @param outcome how the call ended */
	public void setOutcome(@Nullable Outcome outcome) {
		this.outcome = outcome;
	}

	/** @return the attempts made, the first included; final once the call has ended */
	public int getAttempts() {
		return this.attempts;
	}

	/** @param attempts the attempts made */
	public void setAttempts(int attempts) {
		this.attempts = attempts;
	}

}
