package dev.backoff.spring.kafka;

import java.util.Collection;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.ConsumerAwareRebalanceListener;

/**
 * The application's rebalance listener, told first, then a listener's retries and outage: a
 * revoked or lost partition forgets its state (its records' cycles end, its pause is dropped),
 * and a partition assigned during an outage starts held and paused.
 */
final class OutageRebalanceListener implements ConsumerAwareRebalanceListener {

	private final @Nullable ConsumerRebalanceListener delegate;

	private final KafkaListenerRetries retries;

	private final KafkaListenerOutage outage;

	OutageRebalanceListener(@Nullable ConsumerRebalanceListener delegate, KafkaListenerRetries retries,
			KafkaListenerOutage outage) {
		this.delegate = delegate;
		this.retries = retries;
		this.outage = outage;
	}

	@Override
	public void onPartitionsRevokedBeforeCommit(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
		if (this.delegate instanceof ConsumerAwareRebalanceListener aware) {
			aware.onPartitionsRevokedBeforeCommit(consumer, partitions);
		}
		else if (this.delegate != null) {
			this.delegate.onPartitionsRevoked(partitions);
		}
		forget(consumer, partitions);
	}

	@Override
	public void onPartitionsRevokedAfterCommit(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
		if (this.delegate instanceof ConsumerAwareRebalanceListener aware) {
			aware.onPartitionsRevokedAfterCommit(consumer, partitions);
		}
	}

	@Override
	public void onPartitionsLost(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
		if (this.delegate instanceof ConsumerAwareRebalanceListener aware) {
			aware.onPartitionsLost(consumer, partitions);
		}
		else if (this.delegate != null) {
			this.delegate.onPartitionsLost(partitions);
		}
		forget(consumer, partitions);
	}

	@Override
	public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
		if (this.delegate instanceof ConsumerAwareRebalanceListener aware) {
			aware.onPartitionsAssigned(consumer, partitions);
		}
		else if (this.delegate != null) {
			this.delegate.onPartitionsAssigned(partitions);
		}
		this.outage.assigned(consumer, partitions, this.retries.budgetRefuses());
	}

	private void forget(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
		this.retries.revoked(partitions);
		this.outage.revoked(consumer, partitions);
	}

}
