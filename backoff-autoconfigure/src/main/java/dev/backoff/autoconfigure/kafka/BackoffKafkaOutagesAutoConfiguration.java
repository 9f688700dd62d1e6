package dev.backoff.autoconfigure.kafka;

import java.time.Clock;

import dev.backoff.spring.kafka.KafkaOutages;
import dev.backoff.spring.metrics.KafkaOutageMetrics;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * What the outages of Kafka listeners look like from outside: their meters (with Micrometer and
 * a {@link MeterRegistry} bean, unless {@code backoff.metrics.enabled=false}) and the
 * {@code backoffKafkaOutages} health contributor (with Spring Boot's health module, unless
 * {@code management.health.backoff-kafka-outages.enabled=false}). Ordered by name, so that a
 * missing jar never breaks class loading.
 */
@AutoConfiguration(after = BackoffKafkaAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		beforeName = "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration")
@ConditionalOnClass(KafkaOutages.class)
@ConditionalOnBean(KafkaOutages.class)
public final class BackoffKafkaOutagesAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBean(MeterRegistry.class)
	@ConditionalOnBooleanProperty(name = { "backoff.enabled", "backoff.metrics.enabled" }, matchIfMissing = true)
	static class OutageMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		KafkaOutageMetrics backoffKafkaOutageMetrics(KafkaOutages outages, ObjectProvider<Clock> clock) {
			return new KafkaOutageMetrics(outages, clock.getIfUnique(Clock::systemUTC));
		}

		/** Listeners are wired as the containers start, after the registry bound the meters. */
		@Bean
		ApplicationListener<ContextRefreshedEvent> backoffKafkaOutageMetricsRegistration(KafkaOutageMetrics metrics) {
			return new ApplicationListener<>() {

				@Override
				public void onApplicationEvent(ContextRefreshedEvent event) {
					metrics.registerListeners();
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(Health.class)
	@ConditionalOnEnabledHealthIndicator("backoff-kafka-outages")
	static class OutageHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "backoffKafkaOutagesHealthIndicator")
		KafkaOutagesHealthIndicator backoffKafkaOutagesHealthIndicator(KafkaOutages outages, ObjectProvider<Clock> clock) {
			return new KafkaOutagesHealthIndicator(outages, clock.getIfUnique(Clock::systemUTC));
		}

	}

}
