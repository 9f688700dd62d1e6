package dev.backoff.spring.kafka;

/**
 * What a Kafka listener whose policy has a budget does with a failed record once the budget
 * refuses its retry ({@code backoff.kafka.outage}).
 */
public enum KafkaOutageMode {

	/** Pause the record's partition, keep the record for a later delivery, and probe until a record succeeds. */
	PAUSE,

	/** Give the record to the recoverer (a dead-letter topic, say), as a record whose retries have ended. */
	DEAD_LETTER

}
