package dev.backoff.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffSettings;
import dev.backoff.spring.kafka.KafkaOutageMode;

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

		/** The property of {@link #setOutageProbeDelay}. */
		public static final String OUTAGE_PROBE_DELAY = "backoff.kafka.outage-probe-delay";

		/** The property of {@link #setOutageMaxPause}. */
		public static final String OUTAGE_MAX_PAUSE = "backoff.kafka.outage-max-pause";

		/** The property of {@link #setOutageAlertAfter}. */
		public static final String OUTAGE_ALERT_AFTER = "backoff.kafka.outage-alert-after";

		/** The policy of each listener, by its {@code @KafkaListener} id. */
		private Map<String, String> listeners = new LinkedHashMap<>();

		/**
		 * What a listener whose policy has a budget does with a failed record once the budget refuses its
		 * retry: 'pause' its partition and probe until the downstream recovers (the default), or
		 * 'dead-letter' it (give it to the recoverer).
		 */
		private KafkaOutageMode outage = KafkaOutageMode.PAUSE;

		/** The first pause of a partition in an outage, before one record probes the downstream. */
		private Duration outageProbeDelay = Duration.ofSeconds(1);

		/** The longest pause between two probes of an outage: the pauses grow, with jitter, up to it. */
		private Duration outageMaxPause = Duration.ofSeconds(10);

		/** How long a listener may be in an outage before its health reports it. */
		private Duration outageAlertAfter = Duration.ofMinutes(5);

		public Map<String, String> getListeners() {
			return this.listeners;
		}

		public void setListeners(Map<String, String> listeners) {
			this.listeners = listeners;
		}

		public KafkaOutageMode getOutage() {
			return this.outage;
		}

		public void setOutage(KafkaOutageMode outage) {
			this.outage = outage;
		}

		public Duration getOutageProbeDelay() {
			return this.outageProbeDelay;
		}

		public void setOutageProbeDelay(Duration outageProbeDelay) {
			this.outageProbeDelay = positive(OUTAGE_PROBE_DELAY, outageProbeDelay);
		}

		public Duration getOutageMaxPause() {
			return this.outageMaxPause;
		}

		public void setOutageMaxPause(Duration outageMaxPause) {
			this.outageMaxPause = positive(OUTAGE_MAX_PAUSE, outageMaxPause);
		}

		public Duration getOutageAlertAfter() {
			return this.outageAlertAfter;
		}

		public void setOutageAlertAfter(Duration outageAlertAfter) {
			this.outageAlertAfter = positive(OUTAGE_ALERT_AFTER, outageAlertAfter);
		}

		private static Duration positive(String property, Duration value) {
			if (value.compareTo(Duration.ofMillis(1)) < 0) {
				throw new BackoffConfigurationException(property, value, "must be at least 1ms",
						"Set " + property + " to a duration of 1ms or more, such as 1s.");
			}
			return value;
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
