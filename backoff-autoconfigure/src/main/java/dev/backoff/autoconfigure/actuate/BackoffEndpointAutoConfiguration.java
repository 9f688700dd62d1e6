package dev.backoff.autoconfigure.actuate;

import java.time.Clock;

import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.BackoffProperties;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.events.BackoffEvents;
import dev.backoff.spring.kafka.KafkaOutages;
import dev.backoff.spring.operation.BackoffCallCounts;
import dev.backoff.spring.operation.BackoffOperationSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the {@link BackoffEndpoint}: follows Actuator's usual availability
 * and exposure settings ({@code management.endpoints.web.exposure.include=backoff}).
 */
@AutoConfiguration(after = { BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class },
		afterName = "dev.backoff.autoconfigure.kafka.BackoffKafkaAutoConfiguration")
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(BackoffOperationSource.class)
@ConditionalOnAvailableEndpoint(BackoffEndpoint.class)
public final class BackoffEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	BackoffEndpoint backoffEndpoint(BackoffOperationSource operations, ObjectProvider<BackoffCallCounts> counts,
			ObjectProvider<BackoffEvents> events, ObjectProvider<ListenerStates> listeners) {
		return new BackoffEndpoint(operations, counts.getIfAvailable(), events.getIfUnique(), listeners.getIfUnique());
	}

	/** The Kafka listeners under a policy, listed with their outage; only with spring-kafka. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.kafka.config.KafkaListenerEndpointRegistry")
	static class KafkaListenersConfiguration {

		@Bean
		@ConditionalOnBean(KafkaOutages.class)
		ListenerStates backoffKafkaListenerStates(KafkaOutages outages) {
			return new KafkaListenerStates(outages);
		}

	}

	/**
	 * The recent events that the endpoint shows, only while it is available: its listener is
	 * a factory's, which the operation source picks up. Off with
	 * {@code backoff.events.buffer-size=0}.
	 */
	@Bean
	@ConditionalOnMissingBean
	BackoffEvents backoffEvents(BackoffProperties properties, ObjectProvider<Clock> clock, BackoffPolicies policies) {
		BackoffProperties.Events settings = properties.getEvents();
		BackoffEvents events = new BackoffEvents(clock.getIfAvailable(Clock::systemUTC), settings.getBufferSize(),
				settings.isIncludeMessages());
		events.watch(policies);
		return events;
	}

	@Bean
	OperationInvokerAdvisor backoffSettingsBodyAdvisor() {
		return new SettingsBodyAdvisor();
	}

}
