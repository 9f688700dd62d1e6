package dev.backoff.spring.kafka;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.backoff.spring.retry.PolicyBackOff;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.kafka.listener.RetryListener;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.FixedBackOff;

/**
 * One Kafka listener's failed records retried by a named policy, through the container's own
 * seek and redelivery ({@link DefaultErrorHandler}): each failed record is one cycle of the
 * policy ({@link PolicyBackOff}), told each delivery's failure, which stops by itself at the
 * policy's attempts, max-elapsed or budget so that the record goes to the recoverer (a
 * dead-letter topic, say). As a {@link RecordInterceptor} on the same container it sees each
 * record's success: the end of a record's cycle ({@code success_after_retry}), or a success at
 * the first delivery, which gives the budget its share back and is counted as a call.
 */
public final class KafkaListenerRetries implements RetryListener, RecordInterceptor<Object, Object> {

	private final PolicyBackOff backOff;

	/** The cycle of each record in retry, by topic, partition and offset. */
	private final Map<String, PolicyBackOff.Cycle> cycles = new ConcurrentHashMap<>();

	/** @param backOff the named policy, as the listener's retries are reported */
	public KafkaListenerRetries(PolicyBackOff backOff) {
		this.backOff = backOff;
	}

	/** @return the back-off whose cycles the records follow */
	public PolicyBackOff getBackOff() {
		return this.backOff;
	}

	/**
	 * @param recoverer what takes a record whose retries have ended, such as a
	 * {@code DeadLetterPublishingRecoverer}; {@code null} for Spring Kafka's default, which logs it
	 * @return an error handler whose failed records follow the policy and report here
	 */
	public DefaultErrorHandler errorHandler(@Nullable ConsumerRecordRecoverer recoverer) {
		// The default back-off is only asked whether there are retries at all: the function gives each record its own.
		FixedBackOff retries = new FixedBackOff(0, 1);
		DefaultErrorHandler handler = (recoverer != null) ? new DefaultErrorHandler(recoverer, retries)
				: new DefaultErrorHandler(retries);
		handler.setBackOffFunction((record, failure) -> backOff(record));
		// A record's cycle is the policy's, whatever its failures: a new type of failure does not start it over.
		handler.setResetStateOnExceptionChange(false);
		handler.setRetryListeners(this);
		return handler;
	}

	/** A back-off whose one cycle is the record's. */
	private BackOff backOff(ConsumerRecord<?, ?> record) {
		String key = key(record);
		return () -> {
			PolicyBackOff.Cycle cycle = this.backOff.start();
			PolicyBackOff.Cycle earlier = this.cycles.put(key, cycle);
			if (earlier != null && !earlier.isEnded()) {
				earlier.interrupted(null);
			}
			return cycle;
		};
	}

	@Override
	public void failedDelivery(ConsumerRecord<?, ?> record, Exception failure, int deliveryAttempt) {
		PolicyBackOff.Cycle cycle = this.cycles.get(key(record));
		if (cycle != null) {
			// The listener's own failure, for the policy's retry-on and abort-on and the meters' exception tag.
			cycle.failed((failure instanceof ListenerExecutionFailedException && failure.getCause() != null)
					? failure.getCause() : failure);
		}
	}

	@Override
	public void recovered(ConsumerRecord<?, ?> record, Exception failure) {
		// The cycle ended when it said STOP; the recoverer has the record now.
		this.cycles.remove(key(record));
	}

	@Override
	public void recoveryFailed(ConsumerRecord<?, ?> record, Exception original, Exception failure) {
		this.cycles.remove(key(record));
	}

	@Override
	public ConsumerRecord<Object, Object> intercept(ConsumerRecord<Object, Object> record,
			Consumer<Object, Object> consumer) {
		return record;
	}

	@Override
	public void success(ConsumerRecord<Object, Object> record, Consumer<Object, Object> consumer) {
		PolicyBackOff.Cycle cycle = this.cycles.remove(key(record));
		if (cycle != null) {
			cycle.succeeded();
		}
		else {
			this.backOff.succeededAtOnce();
		}
	}

	private static String key(ConsumerRecord<?, ?> record) {
		return record.topic() + "-" + record.partition() + "@" + record.offset();
	}

}
