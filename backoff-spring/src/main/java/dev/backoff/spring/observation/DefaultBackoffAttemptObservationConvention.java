package dev.backoff.spring.observation;

import java.time.Duration;

import dev.backoff.spring.config.DurationFormat;
import dev.backoff.spring.observation.BackoffAttemptObservationContext.AttemptOutcome;
import dev.backoff.spring.observation.BackoffObservationDocumentation.AttemptHighCardinalityKeyNames;
import dev.backoff.spring.observation.BackoffObservationDocumentation.AttemptKeyNames;
import dev.backoff.spring.operation.BackoffOperation;
import io.micrometer.common.KeyValues;

/**
 * The default {@link BackoffAttemptObservationConvention}: the name {@code backoff.attempt},
 * the low-cardinality keys {@code backoff.policy}, {@code backoff.method} and, once the
 * attempt has ended, {@code backoff.attempt.outcome} and {@code exception}; the
 * high-cardinality keys {@code backoff.attempt} and, when a retry follows, {@code backoff.delay}.
 */
public class DefaultBackoffAttemptObservationConvention implements BackoffAttemptObservationConvention {

	/** The name of the observation of an attempt. */
	public static final String NAME = "backoff.attempt";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(BackoffAttemptObservationContext context) {
		BackoffOperation operation = context.getOperation();
		KeyValues keys = DefaultBackoffObservationConvention.operationKeys(operation);
		AttemptOutcome outcome = context.getOutcome();
		if (outcome == null) {
			return keys;
		}
		return keys.and(AttemptKeyNames.ATTEMPT_OUTCOME.withValue(outcome.keyValue()),
				AttemptKeyNames.EXCEPTION.withValue(operation.getExceptionTag(context.getFailure())));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(BackoffAttemptObservationContext context) {
		KeyValues keys = KeyValues.of(AttemptHighCardinalityKeyNames.ATTEMPT.withValue(String.valueOf(context.getAttempt())));
		Duration delay = context.getDelay();
		return (delay != null)
				? keys.and(AttemptHighCardinalityKeyNames.DELAY.withValue(DurationFormat.formatRounded(delay))) : keys;
	}

}
