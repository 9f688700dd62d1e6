package dev.backoff.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The name and keys of {@code backoff.attempt} observations. Define a bean of this type to
 * replace {@link DefaultBackoffAttemptObservationConvention}, or extend that to add keys.
 */
public interface BackoffAttemptObservationConvention
		extends ObservationConvention<BackoffAttemptObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof BackoffAttemptObservationContext;
	}

}
