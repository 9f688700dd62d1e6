package dev.backoff.autoconfigure.kafka;

import java.time.Clock;

import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.BackoffProperties;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.kafka.KafkaListenerPolicies;
import dev.backoff.spring.kafka.KafkaOutages;
import dev.backoff.spring.retry.BackoffRetries;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;

/**
 * With spring-kafka, the Kafka listeners that name a policy ({@code @Backoff} on the
 * {@code @KafkaListener} method, or {@code backoff.kafka.listeners.<id>}) have their failed
 * records redelivered by it, with the application's {@link ConsumerRecordRecoverer} bean, if it
 * has one, after the last attempt. Ordered after Boot's Kafka auto-configuration by name, so that
 * a missing jar never breaks class loading.
 */
@AutoConfiguration(after = BackoffAutoConfiguration.class,
		afterName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnClass(KafkaListenerEndpointRegistry.class)
@ConditionalOnBean({ BackoffRetries.class, KafkaListenerEndpointRegistry.class })
public final class BackoffKafkaAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	KafkaOutages backoffKafkaOutages(BackoffProperties properties, ObjectProvider<Clock> clock) {
		BackoffProperties.Kafka kafka = properties.getKafka();
		if (kafka.getOutageMaxPause().compareTo(kafka.getOutageProbeDelay()) < 0) {
			throw new BackoffConfigurationException(BackoffProperties.Kafka.OUTAGE_MAX_PAUSE, kafka.getOutageMaxPause(),
					"must be at least " + BackoffProperties.Kafka.OUTAGE_PROBE_DELAY + " ("
							+ kafka.getOutageProbeDelay() + "): the pauses between probes grow from it up to this",
					"Raise " + BackoffProperties.Kafka.OUTAGE_MAX_PAUSE + " or lower "
							+ BackoffProperties.Kafka.OUTAGE_PROBE_DELAY + ".");
		}
		return new KafkaOutages(clock.getIfUnique(Clock::systemUTC), kafka.getOutage(), kafka.getOutageProbeDelay(),
				kafka.getOutageMaxPause(), kafka.getOutageAlertAfter());
	}

	@Bean
	@ConditionalOnMissingBean
	KafkaListenerPolicies backoffKafkaListenerPolicies(BackoffRetries retries, BackoffProperties properties,
			ObjectProvider<ConsumerRecordRecoverer> recoverer, ConfigurableListableBeanFactory beanFactory,
			KafkaOutages outages) {
		// Listener ids resolve as Spring Kafka resolves them: placeholders, then bean expressions.
		return new KafkaListenerPolicies(() -> beanFactory.getBean(KafkaListenerEndpointRegistry.class), retries,
				properties.getKafka().getListeners(), recoverer.getIfUnique(), new EmbeddedValueResolver(beanFactory),
				beanFactory, outages);
	}

}
