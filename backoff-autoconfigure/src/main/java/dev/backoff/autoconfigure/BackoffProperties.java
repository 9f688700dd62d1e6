package dev.backoff.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.backoff.spring.config.BackoffSettings;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code backoff.*} bound by Spring Boot from {@code application.yml}: the settings of
 * {@link BackoffSettings}, whose descriptions the IDE shows from this module's configuration
 * metadata. Boot's binding adds relaxed names and the strict check of unknown keys.
 */
@ConfigurationProperties("backoff")
public class BackoffProperties extends BackoffSettings {

	private final Kafka kafka = new Kafka();

	public Kafka getKafka() {
		return this.kafka;
	}

	/**
	 * Kafka listeners whose failed records follow a named policy.
	 */
	public static class Kafka {

		/** The policy of each listener, by its {@code @KafkaListener} id. */
		private Map<String, String> listeners = new LinkedHashMap<>();

		public Map<String, String> getListeners() {
			return this.listeners;
		}

		public void setListeners(Map<String, String> listeners) {
			this.listeners = listeners;
		}

	}

}
