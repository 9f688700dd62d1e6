package dev.backoff.autoconfigure.actuate;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The message listeners wired under a policy, as {@code GET /actuator/backoff} lists them
 * ({@code listeners}): Kafka's, when spring-kafka is present ({@link KafkaListenerStates}).
 * Free of Kafka's types, so that the endpoint loads without it.
 */
@FunctionalInterface
public interface ListenerStates {

	/** @return each listener by its id, in the order they were wired */
	Map<String, ListenerDescriptor> listeners();

	/**
	 * One listener and its outage now.
	 * @param policy the listener's policy
	 * @param pausedPartitions the partitions its outage holds paused now ({@code topic-partition}), sorted
	 * @param since when its current outage began (ISO-8601, to the millisecond), or {@code null} when it is in none
	 */
	record ListenerDescriptor(String policy, List<String> pausedPartitions, @Nullable String since) {
	}

}
