package dev.backoff.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.backoff.spring.config.BackoffConfigurationException;
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

	private final Events events = new Events();

	public Kafka getKafka() {
		return this.kafka;
	}

	public Events getEvents() {
		return this.events;
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

	/**
	 * The recent events of each policy, which the backoff endpoint shows.
	 */
	public static class Events {

		/** The property of {@link #setBufferSize}. */
		static final String BUFFER_SIZE = "backoff.events.buffer-size";

		/**
		 * Events kept per policy, newest first: retries scheduled, calls that ended without
		 * success or after retries, budget refusals, hedges sent and won, live changes. 0 keeps
		 * none. Kept only while the backoff endpoint is available.
		 */
		private int bufferSize = 100;

		/**
		 * Whether an event keeps its exception's message, cut to 200 characters; a message may
		 * hold what should not leave the process.
		 */
		private boolean includeMessages = true;

		public int getBufferSize() {
			return this.bufferSize;
		}

		public void setBufferSize(int bufferSize) {
			if (bufferSize < 0) {
				throw new BackoffConfigurationException(BUFFER_SIZE, bufferSize, "must be 0 or more",
						"Set " + BUFFER_SIZE + " to the number of events to keep per policy, or 0 to keep none.");
			}
			this.bufferSize = bufferSize;
		}

		public boolean isIncludeMessages() {
			return this.includeMessages;
		}

		public void setIncludeMessages(boolean includeMessages) {
			this.includeMessages = includeMessages;
		}

	}

}
