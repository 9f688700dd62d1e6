package dev.backoff.spring.observation;

import dev.backoff.Outcome;
import dev.backoff.spring.observation.BackoffObservationDocumentation.CallKeyNames;
import dev.backoff.spring.operation.BackoffOperation;
import io.micrometer.common.KeyValues;

/**
 * The default {@link BackoffObservationConvention}: the name {@code backoff.call} and the
 * keys {@code backoff.policy}, {@code backoff.method} and, once the call has ended,
 * {@code backoff.outcome}.
 */
public class DefaultBackoffObservationConvention implements BackoffObservationConvention {

	/** The name of the observation of a call. */
	public static final String NAME = "backoff.call";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(BackoffObservationContext context) {
		KeyValues keys = operationKeys(context.getOperation());
		Outcome outcome = context.getOutcome();
		// Only once known: an "unknown" value at the start would show up in the handlers that
		// read the keys then, such as the meter handler's long-task timer.
		return (outcome != null) ? keys.and(CallKeyNames.OUTCOME.withValue(outcome.tagValue())) : keys;
	}

	/** The keys of the method and its policy, on the call and on each attempt alike. */
	static KeyValues operationKeys(BackoffOperation operation) {
		return KeyValues.of(CallKeyNames.POLICY.withValue(operation.getPolicyName()),
				CallKeyNames.METHOD.withValue(operation.getMethodTag()));
	}

}
