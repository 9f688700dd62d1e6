package dev.backoff.spring.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

import org.springframework.core.log.LogAccessor;
import org.springframework.kafka.KafkaException;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.SeekUtils;
import org.springframework.kafka.support.TopicPartitionOffset;

/**
 * A listener's error handler under a policy: Spring Kafka's {@link DefaultErrorHandler} (seeks,
 * waits, the recoverer), with Backoff deciding each failed delivery first
 * ({@link KafkaListenerRetries#holds}), so that a record held back by an outage is sought
 * back, its partition paused and nothing recovered or committed.
 *
 * <p>A batch listener's failure is one record's: the one a {@link BatchListenerFailedException}
 * names, or else the batch's first. The records before it are committed (they were processed),
 * and that record follows the policy as a record listener's does, from where it failed.
 */
final class RetriesErrorHandler implements CommonErrorHandler {

	private static final LogAccessor logger = new LogAccessor(LogFactory.getLog(RetriesErrorHandler.class));

	private final DefaultErrorHandler delegate;

	private final KafkaListenerRetries retries;

	RetriesErrorHandler(DefaultErrorHandler delegate, KafkaListenerRetries retries) {
		this.delegate = delegate;
		this.retries = retries;
	}

	@Override
	public void handleRemaining(Exception thrownException, List<ConsumerRecord<?, ?>> records,
			Consumer<?, ?> consumer, MessageListenerContainer container) {
		KafkaListenerOutage.HeldBack held = KafkaListenerOutage.heldBack(thrownException);
		ConsumerRecord<?, ?> first = records.get(0);
		if (held != null) {
			holdBack(thrownException, records, List.of(first), consumer, held.partitions());
		}
		if (this.retries.holds(first, thrownException)) {
			holdBack(thrownException, records, List.of(first), consumer,
					Set.of(KafkaListenerRetries.partition(first)));
		}
		this.delegate.handleRemaining(thrownException, records, consumer, container);
	}

	@Override
	public void handleBatch(Exception thrownException, ConsumerRecords<?, ?> data, Consumer<?, ?> consumer,
			MessageListenerContainer container, Runnable invokeListener) {
		this.delegate.handleBatch(decideBatch(thrownException, data, consumer), data, consumer, container,
				invokeListener);
	}

	@Override
	public <K, V> ConsumerRecords<K, V> handleBatchAndReturnRemaining(Exception thrownException,
			ConsumerRecords<?, ?> data, Consumer<?, ?> consumer, MessageListenerContainer container,
			Runnable invokeListener) {
		return this.delegate.handleBatchAndReturnRemaining(decideBatch(thrownException, data, consumer), data,
				consumer, container, invokeListener);
	}

	/**
	 * Decides a batch's failure as its failed record's: a batch held back whole, or the record's
	 * failure as the delegate handles it (a {@link BatchListenerFailedException} naming it).
	 */
	private Exception decideBatch(Exception thrownException, ConsumerRecords<?, ?> data, Consumer<?, ?> consumer) {
		List<ConsumerRecord<?, ?>> records = new ArrayList<>();
		data.forEach(records::add);
		KafkaListenerOutage.HeldBack held = KafkaListenerOutage.heldBack(thrownException);
		if (held != null) {
			List<ConsumerRecord<?, ?>> heldBack = records.stream()
				.filter((record) -> held.partitions().contains(KafkaListenerRetries.partition(record)))
				.toList();
			holdBack(thrownException, records, heldBack, consumer, held.partitions());
		}
		BatchListenerFailedException named = batchListenerFailed(thrownException);
		int index = (named == null) ? 0
				: (named.getRecord() != null) ? records.indexOf(named.getRecord()) : named.getIndex();
		if (index < 0 || index >= records.size()) {
			index = 0;
		}
		ConsumerRecord<?, ?> failed = records.get(index);
		// The records before it were processed: they succeeded.
		records.subList(0, index).forEach(this.retries::succeeded);
		Exception failure = (named != null) ? named
				: new BatchListenerFailedException("The batch failed at its first record", thrownException, failed);
		if (this.retries.holds(failed, (named != null && named.getCause() instanceof Exception cause) ? cause
				: thrownException)) {
			TopicPartition partition = KafkaListenerRetries.partition(failed);
			KafkaListenerOutage outage = this.retries.outage();
			if (outage != null) {
				outage.pause(consumer, partition);
				outage.heldBack(failed);
			}
			// The delegate commits the records before it and seeks it back without a wait or the recoverer.
			this.retries.decideNow(failed);
		}
		return failure;
	}

	/** Seeks the records back, pauses the partitions, and ends the handling without a commit. */
	private void holdBack(Exception thrownException, List<ConsumerRecord<?, ?>> records,
			List<ConsumerRecord<?, ?>> heldBack, Consumer<?, ?> consumer, Set<TopicPartition> partitions) {
		KafkaListenerOutage outage = this.retries.outage();
		if (outage != null) {
			partitions.forEach((partition) -> outage.pause(consumer, partition));
			heldBack.forEach(outage::heldBack);
		}
		SeekUtils.doSeeksToBegin(records, consumer, logger);
		throw new KafkaException("Held back by an outage: " + partitions, KafkaException.Level.DEBUG, thrownException);
	}

	private static BatchListenerFailedException batchListenerFailed(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof BatchListenerFailedException named) {
				return named;
			}
		}
		return null;
	}

	@Override
	public boolean seeksAfterHandling() {
		return this.delegate.seeksAfterHandling();
	}

	@Override
	public boolean deliveryAttemptHeader() {
		return this.delegate.deliveryAttemptHeader();
	}

	@Override
	public void handleOtherException(Exception thrownException, Consumer<?, ?> consumer,
			MessageListenerContainer container, boolean batchListener) {
		this.delegate.handleOtherException(thrownException, consumer, container, batchListener);
	}

	@Override
	public boolean handleOne(Exception thrownException, ConsumerRecord<?, ?> record, Consumer<?, ?> consumer,
			MessageListenerContainer container) {
		return this.delegate.handleOne(thrownException, record, consumer, container);
	}

	@Override
	public int deliveryAttempt(TopicPartitionOffset topicPartitionOffset) {
		return this.delegate.deliveryAttempt(topicPartitionOffset);
	}

	@Override
	public void clearThreadState() {
		this.delegate.clearThreadState();
	}

	@Override
	public boolean isAckAfterHandle() {
		return this.delegate.isAckAfterHandle();
	}

	@Override
	public void setAckAfterHandle(boolean ack) {
		this.delegate.setAckAfterHandle(ack);
	}

	@Override
	public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions,
			Runnable publishPause) {
		this.delegate.onPartitionsAssigned(consumer, partitions, publishPause);
	}

	@Override
	public String toString() {
		return "RetriesErrorHandler[" + this.retries.getBackOff() + "]";
	}

}
