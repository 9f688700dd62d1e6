package dev.backoff.spring.kafka;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.backoff.RetryBudget;
import dev.backoff.spring.retry.PolicyBackOff;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.kafka.listener.RetryListener;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.FixedBackOff;

/**
 * One Kafka listener's failed records retried by a named policy, through the container's own
 * seek and redelivery ({@link DefaultErrorHandler}): each failed record is one cycle of the
 * policy ({@link PolicyBackOff}), told each delivery's failure, which stops by itself at the
 * policy's attempts, max-elapsed or budget so that the record goes to the recoverer (a
 * dead-letter topic, say). As a {@link RecordInterceptor} on the same container it sees each
 * record's success: the end of a record's cycle ({@code success_after_retry}), or a success at
 * the first delivery, which gives the budget its share back and is counted as a call.
 *
 * <p>In outage mode ({@link KafkaOutageMode#PAUSE}), a record whose retry the budget refuses
 * is not recovered: its partition is held ({@link KafkaListenerOutage}), the record is sought
 * back and left uncommitted, and its cycle stays open until it succeeds or is recovered. A
 * failure of a held partition's record counts toward the record's max-attempts only when it
 * is the record's own: other records of the listener succeeded since its last failure, the
 * budget allows retries again, or the policy never retries that failure; so a poison record
 * still reaches the recoverer after exactly max-attempts deliveries, and an outage's failed
 * probes count for nothing.
 */
public final class KafkaListenerRetries implements RetryListener, RecordInterceptor<Object, Object> {

	private final PolicyBackOff backOff;

	private final @Nullable KafkaListenerOutage outage;

	/** The cycle of each record in retry, by topic, partition and offset. */
	private final Map<String, PolicyBackOff.Cycle> cycles = new ConcurrentHashMap<>();

	/** The listener's successes when each record in retry last failed. */
	private final Map<String, Long> failedAt = new ConcurrentHashMap<>();

	/** What each record's failed delivery decided, for the error handler's back-off to return. */
	private final Map<String, Long> decided = new ConcurrentHashMap<>();

	/** @param backOff the named policy, as the listener's retries are reported */
	public KafkaListenerRetries(PolicyBackOff backOff) {
		this(backOff, null);
	}

	KafkaListenerRetries(PolicyBackOff backOff, @Nullable KafkaListenerOutage outage) {
		this.backOff = backOff;
		this.outage = outage;
	}

	/** @return the back-off whose cycles the records follow */
	public PolicyBackOff getBackOff() {
		return this.backOff;
	}

	@Nullable KafkaListenerOutage outage() {
		return this.outage;
	}

	/**
	 * @param recoverer what takes a record whose retries have ended, such as a
	 * {@code DeadLetterPublishingRecoverer}; {@code null} for Spring Kafka's default, which logs it
	 * @return an error handler whose failed records follow the policy and report here
	 */
	public CommonErrorHandler errorHandler(@Nullable ConsumerRecordRecoverer recoverer) {
		// The default back-off is only asked whether there are retries at all: the function gives each record its own.
		FixedBackOff retries = new FixedBackOff(0, 1);
		DefaultErrorHandler handler = (recoverer != null) ? new DefaultErrorHandler(recoverer, retries)
				: new DefaultErrorHandler(retries);
		handler.setBackOffFunction((record, failure) -> decidedBackOff(record));
		// A record's cycle is the policy's, whatever its failures: a new type of failure does not start it over.
		handler.setResetStateOnExceptionChange(false);
		handler.setRetryListeners(this);
		return new RetriesErrorHandler(handler, this);
	}

	/** A back-off that returns what {@link #holds} decided for the record's failed delivery. */
	private BackOff decidedBackOff(ConsumerRecord<?, ?> record) {
		String key = key(record);
		return () -> () -> {
			Long next = this.decided.remove(key);
			return (next != null) ? next : BackOffExecution.STOP;
		};
	}

	/**
	 * Decides what follows a failed delivery of the record: either the error handler goes on as
	 * the policy decided (a wait then a redelivery, or the recoverer), or the record is held
	 * back by an outage, its partition paused, and the caller seeks it back without recovering it.
	 * @param record the record whose delivery failed
	 * @param failure what the listener threw
	 * @return whether the record is held back
	 */
	boolean holds(ConsumerRecord<?, ?> record, Exception failure) {
		String key = key(record);
		PolicyBackOff.Cycle cycle = this.cycles.compute(key,
				(k, earlier) -> (earlier == null || earlier.isEnded()) ? this.backOff.start() : earlier);
		// The listener's own failure, for the policy's retry-on and abort-on and the meters' exception tag.
		Throwable cause = (failure instanceof ListenerExecutionFailedException && failure.getCause() != null)
				? failure.getCause() : failure;
		KafkaListenerOutage outage = this.outage;
		if (outage == null) {
			cycle.failed(cause);
			this.decided.put(key, cycle.nextBackOff());
			return false;
		}
		TopicPartition partition = partition(record);
		boolean held = outage.isHeld(partition);
		Long before = this.failedAt.put(key, outage.successes());
		boolean own = !held || (before != null && outage.successes() > before) || budgetAllowsRetries()
				|| !retryable(cause);
		if (!own) {
			// A failed probe, or a failure while the gate ramps: the outage's, not the record's.
			outage.failed(partition);
			return true;
		}
		cycle.failed(cause);
		long next = cycle.nextBackOffUnlessRefused();
		if (next == PolicyBackOff.Cycle.REFUSED) {
			if (held) {
				outage.failed(partition);
			}
			else {
				outage.refused(partition);
			}
			return true;
		}
		if (held) {
			outage.failed(partition);
			if (next != BackOffExecution.STOP) {
				// Its next delivery is the partition's next probe, not a wait on the consumer's thread.
				return true;
			}
		}
		this.decided.put(key, next);
		return false;
	}

	/** A record held back in a batch: the error handler's back-off seeks it back at once, without the recoverer. */
	void decideNow(ConsumerRecord<?, ?> record) {
		this.decided.put(key(record), 0L);
	}

	/** A failure the policy never retries is the record's own, whatever else fails. */
	private boolean retryable(Throwable failure) {
		try {
			return this.backOff.getOperation().getPolicy().getRules().isRetryable(failure);
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	private boolean budgetAllowsRetries() {
		RetryBudget budget = this.backOff.getOperation().getBudget();
		return budget != null && budget.allowsRetries();
	}

	/** @return whether the policy's budget refuses retries now */
	boolean budgetRefuses() {
		RetryBudget budget = this.backOff.getOperation().getBudget();
		return budget != null && !budget.allowsRetries();
	}

	/** Reports a record's success: the end of its cycle, or a success at its first delivery. */
	void succeeded(ConsumerRecord<?, ?> record) {
		String key = key(record);
		this.failedAt.remove(key);
		PolicyBackOff.Cycle cycle = this.cycles.remove(key);
		if (cycle != null) {
			cycle.succeeded();
		}
		else {
			this.backOff.succeededAtOnce();
		}
		if (this.outage != null) {
			this.outage.succeeded(partition(record));
		}
	}

	/** Partitions revoked: the cycles of their records end ({@code interrupted}), as another consumer has them now. */
	void revoked(Collection<TopicPartition> partitions) {
		Set<String> prefixes = new java.util.HashSet<>();
		partitions.forEach((partition) -> prefixes.add(partition.topic() + "-" + partition.partition() + "@"));
		this.cycles.entrySet().removeIf((entry) -> {
			String key = entry.getKey();
			if (prefixes.contains(key.substring(0, key.lastIndexOf('@') + 1))) {
				entry.getValue().interrupted(null);
				this.failedAt.remove(key);
				return true;
			}
			return false;
		});
	}

	@Override
	public void failedDelivery(ConsumerRecord<?, ?> record, Exception failure, int deliveryAttempt) {
		// Told before the back-off is asked: holds(…) has told the record's cycle already.
	}

	@Override
	public void recovered(ConsumerRecord<?, ?> record, Exception failure) {
		// The cycle ended when it said STOP; the recoverer has the record now.
		forget(record);
	}

	@Override
	public void recoveryFailed(ConsumerRecord<?, ?> record, Exception original, Exception failure) {
		forget(record);
	}

	private void forget(ConsumerRecord<?, ?> record) {
		String key = key(record);
		this.cycles.remove(key);
		this.failedAt.remove(key);
		this.decided.remove(key);
	}

	@Override
	public ConsumerRecord<Object, Object> intercept(ConsumerRecord<Object, Object> record,
			Consumer<Object, Object> consumer) {
		KafkaListenerOutage outage = this.outage;
		if (outage != null) {
			TopicPartition partition = partition(record);
			if (!outage.mayDeliver(partition)) {
				throw new KafkaListenerOutage.HeldBack(Set.of(partition));
			}
		}
		return record;
	}

	@Override
	public void success(ConsumerRecord<Object, Object> record, Consumer<Object, Object> consumer) {
		succeeded(record);
	}

	@Override
	public void setupThreadState(Consumer<?, ?> consumer) {
		if (this.outage != null) {
			this.outage.beforePoll(consumer);
		}
	}

	static TopicPartition partition(ConsumerRecord<?, ?> record) {
		return new TopicPartition(record.topic(), record.partition());
	}

	private static String key(ConsumerRecord<?, ?> record) {
		return record.topic() + "-" + record.partition() + "@" + record.offset();
	}

}
