package dev.backoff.spring.kafka;

import java.util.LinkedHashSet;
import java.util.Set;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

import org.springframework.kafka.listener.BatchInterceptor;

/**
 * A batch listener's side of {@link KafkaListenerRetries}: each record of a batch that
 * succeeds is reported as a record listener's, and a batch that holds records of partitions an
 * outage holds back is not delivered: it is held back whole (each partition asked once, as one
 * delivery), its held partitions paused, the others delivered at the next poll.
 */
final class KafkaBatchRetries implements BatchInterceptor<Object, Object> {

	private final KafkaListenerRetries retries;

	KafkaBatchRetries(KafkaListenerRetries retries) {
		this.retries = retries;
	}

	@Override
	public ConsumerRecords<Object, Object> intercept(ConsumerRecords<Object, Object> records,
			Consumer<Object, Object> consumer) {
		KafkaListenerOutage outage = this.retries.outage();
		if (outage != null) {
			Set<TopicPartition> heldBack = new LinkedHashSet<>();
			for (TopicPartition partition : records.partitions()) {
				if (!outage.mayDeliver(partition)) {
					heldBack.add(partition);
				}
			}
			if (!heldBack.isEmpty()) {
				throw new KafkaListenerOutage.HeldBack(heldBack);
			}
		}
		return records;
	}

	@Override
	public void success(ConsumerRecords<Object, Object> records, Consumer<Object, Object> consumer) {
		records.forEach(this.retries::succeeded);
	}

	@Override
	public void setupThreadState(Consumer<?, ?> consumer) {
		this.retries.setupThreadState(consumer);
	}

}
