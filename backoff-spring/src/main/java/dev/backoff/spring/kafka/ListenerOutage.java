package dev.backoff.spring.kafka;

import java.time.Instant;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * One Kafka listener wired under a policy, and its outage now.
 * @param listenerId the {@code @KafkaListener} id
 * @param policy the listener's policy
 * @param pausedPartitions the partitions Backoff holds paused now (empty when none)
 * @param since when its current outage began, or {@code null} when it is in none
 */
public record ListenerOutage(String listenerId, String policy, Set<TopicPartition> pausedPartitions,
		@Nullable Instant since) {

	public ListenerOutage {
		pausedPartitions = Set.copyOf(pausedPartitions);
	}

}
