package dev.backoff.autoconfigure.observation;

import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.spring.observation.BackoffAttemptObservationConvention;
import dev.backoff.spring.observation.BackoffObservationConvention;
import dev.backoff.spring.observation.BackoffObservations;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * Auto-configuration of the {@code backoff.call} and {@code backoff.attempt} observations:
 * active when an {@link ObservationRegistry} bean is present and
 * {@code backoff.observations.enabled} is {@code true}, or, when it is not set, when an
 * observation handler other than a meter handler is defined, such as Micrometer Tracing's (see
 * {@link OnObservationsCondition}). A {@link BackoffObservationConvention} or
 * {@link BackoffAttemptObservationConvention} bean replaces the default names and keys.
 * Ordered after Spring Boot's observation and tracing configurations, which define the
 * handlers, named rather than referenced so that a missing jar never breaks class loading.
 */
@AutoConfiguration(after = BackoffAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration",
				"org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration" })
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "backoff.enabled", matchIfMissing = true)
@Conditional(OnObservationsCondition.class)
public final class BackoffObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	BackoffObservations backoffObservations(ObservationRegistry registry,
			ObjectProvider<BackoffObservationConvention> callConvention,
			ObjectProvider<BackoffAttemptObservationConvention> attemptConvention) {
		return new BackoffObservations(registry, callConvention.getIfUnique(), attemptConvention.getIfUnique());
	}

}
