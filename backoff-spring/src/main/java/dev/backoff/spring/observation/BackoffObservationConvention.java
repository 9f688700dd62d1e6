package dev.backoff.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The name and keys of {@code backoff.call} observations. Define a bean of this type to
 * replace {@link DefaultBackoffObservationConvention}, or extend that to add keys.
 */
public interface BackoffObservationConvention extends ObservationConvention<BackoffObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof BackoffObservationContext;
	}

}
