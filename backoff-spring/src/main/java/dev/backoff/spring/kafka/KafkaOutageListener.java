package dev.backoff.spring.kafka;

import java.time.Duration;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Told what the outages of Kafka listeners under a policy do: partitions paused and resumed,
 * probes and their outcome, records held back for a later redelivery. Meters and health
 * indicators implement it; every method is a no-op by default. Called on a consumer thread: a
 * listener must be quick, and whatever it throws is logged and never changes a record's fate.
 */
public interface KafkaOutageListener {

	/**
	 * A partition of the listener was paused because its policy's budget refused a retry, or a probe failed.
	 * @param listenerId the {@code @KafkaListener} id
	 * @param policy the listener's policy
	 * @param partition the partition paused
	 */
	default void paused(String listenerId, String policy, TopicPartition partition) {
	}

	/**
	 * A paused partition of the listener flows again: a probe succeeded, or it was revoked.
	 * @param listenerId the {@code @KafkaListener} id
	 * @param policy the listener's policy
	 * @param partition the partition resumed
	 * @param paused how long it was paused
	 */
	default void resumed(String listenerId, String policy, TopicPartition partition, Duration paused) {
	}

	/**
	 * A probe (one record of a paused partition, tried after the pause) ended.
	 * @param listenerId the {@code @KafkaListener} id
	 * @param policy the listener's policy
	 * @param succeeded whether the record was processed
	 */
	default void probed(String listenerId, String policy, boolean succeeded) {
	}

	/**
	 * A record was held back by an outage: not processed now, not recovered, left uncommitted for a later delivery.
	 * @param listenerId the {@code @KafkaListener} id
	 * @param policy the listener's policy
	 * @param record the record held back
	 */
	default void heldBack(String listenerId, String policy, ConsumerRecord<?, ?> record) {
	}

}
