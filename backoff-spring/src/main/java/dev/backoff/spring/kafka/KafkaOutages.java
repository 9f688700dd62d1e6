package dev.backoff.spring.kafka;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The outages of the Kafka listeners wired under a policy: one per application, shared by every
 * listener's wiring. It lists each listener with its state ({@link #listeners()}) and tells the
 * {@link KafkaOutageListener}s added to it what the outages do.
 */
public final class KafkaOutages {

	private static final Log logger = LogFactory.getLog(KafkaOutages.class);

	private final List<KafkaOutageListener> outageListeners = new CopyOnWriteArrayList<>();

	private final Clock clock;

	private final Duration alertAfter;

	/**
	 * @param clock the clock whose time {@link ListenerOutage#since()} reads
	 * @param alertAfter how long an outage lasts before health indicators report it ({@code backoff.kafka.outage-alert-after})
	 */
	public KafkaOutages(Clock clock, Duration alertAfter) {
		this.clock = clock;
		this.alertAfter = alertAfter;
	}

	/** @param listener told of every listener's pauses, resumes, probes and held-back records */
	public void addListener(KafkaOutageListener listener) {
		this.outageListeners.add(listener);
	}

	/** @return every listener wired under a policy, in the order they were wired, with its current state */
	public List<ListenerOutage> listeners() {
		return List.of();
	}

	/** @return how long an outage lasts before health indicators report it ({@code backoff.kafka.outage-alert-after}) */
	public Duration getAlertAfter() {
		return this.alertAfter;
	}

	/** @return the clock whose time {@link ListenerOutage#since()} reads */
	Clock clock() {
		return this.clock;
	}

	/** Calls each listener; what one throws is logged, never passed on: it must not change a record's fate. */
	void tell(java.util.function.Consumer<KafkaOutageListener> call) {
		for (KafkaOutageListener listener : this.outageListeners) {
			try {
				call.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("A KafkaOutageListener failed (" + listener + "); the record's fate is unchanged", ex);
			}
		}
	}

}
