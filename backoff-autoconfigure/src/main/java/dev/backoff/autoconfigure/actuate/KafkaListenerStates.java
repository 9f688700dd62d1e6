package dev.backoff.autoconfigure.actuate;

import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.backoff.spring.kafka.KafkaOutages;
import dev.backoff.spring.kafka.ListenerOutage;

/**
 * The Kafka listeners wired under a policy, from {@link KafkaOutages}: each with its paused
 * partitions and since when its outage goes on.
 */
final class KafkaListenerStates implements ListenerStates {

	private final KafkaOutages outages;

	KafkaListenerStates(KafkaOutages outages) {
		this.outages = outages;
	}

	@Override
	public Map<String, ListenerDescriptor> listeners() {
		Map<String, ListenerDescriptor> listeners = new LinkedHashMap<>();
		for (ListenerOutage outage : this.outages.listeners()) {
			listeners.put(outage.listenerId(), new ListenerDescriptor(outage.policy(),
					outage.pausedPartitions().stream().map(Object::toString).sorted().toList(),
					(outage.since() != null) ? outage.since().truncatedTo(ChronoUnit.MILLIS).toString() : null));
		}
		return listeners;
	}

}
