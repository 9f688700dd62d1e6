package dev.backoff.autoconfigure.observation;

import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.BackoffObservations;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code backoff.call} and {@code backoff.attempt} observations:
 * active when an {@link ObservationRegistry} bean is present (Spring Boot's actuator
 * configures one), unless {@code backoff.observations.enabled=false}. A
 * {@link BackoffObservationConvention} or {@link BackoffAttemptObservationConvention} bean
 * replaces the default names and keys. Ordered after Spring Boot's observation configuration,
 * named rather than referenced so that a missing jar never breaks class loading.
 */
@AutoConfiguration(after = BackoffAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = { "backoff.enabled", "backoff.observations.enabled" }, matchIfMissing = true)
public final class BackoffObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	BackoffObservations backoffObservations(ObservationRegistry registry,
			ObjectProvider<BackoffObservationConvention> callConvention,
			ObjectProvider<BackoffAttemptObservationConvention> attemptConvention) {
		return new BackoffObservations(registry, callConvention.getIfUnique(), attemptConvention.getIfUnique());
	}

}
