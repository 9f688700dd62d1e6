package dev.backoff.sample.monitoring;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

import dev.backoff.Backoff;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.test.utils.ContainerTestUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Kafka listener of the monitoring tests' traffic: it writes each quote to a ledger, its
 * downstream, which the traffic can take down. Its policy {@code ledger} has a budget, so an
 * outage of the ledger pauses its partitions instead of dead-lettering their records; the
 * application's recoverer, the dead-letter topic's stand-in, keeps whatever reaches it.
 */
public class QuoteLedger {

	static final String TOPIC = "quotes";

	static final String LISTENER = "quote-ledger";

	static final int PARTITIONS = 3;

	private final Set<String> written = ConcurrentHashMap.newKeySet();

	private final Set<String> sent = ConcurrentHashMap.newKeySet();

	private final List<ConsumerRecord<?, ?>> deadLettered = new CopyOnWriteArrayList<>();

	private final ObjectProvider<KafkaTemplate<Object, Object>> template;

	private final ObjectProvider<KafkaListenerEndpointRegistry> registry;

	private volatile boolean down;

	QuoteLedger(ObjectProvider<KafkaTemplate<Object, Object>> template,
			ObjectProvider<KafkaListenerEndpointRegistry> registry) {
		this.template = template;
		this.registry = registry;
	}

	@KafkaListener(id = LISTENER, topics = TOPIC)
	@Backoff("ledger")
	void onQuote(ConsumerRecord<String, String> record) {
		if (this.down) {
			throw new IllegalStateException("The ledger is down");
		}
		this.written.add(record.key());
	}

	@Bean
	ConsumerRecordRecoverer ledgerDeadLetters() {
		return (record, failure) -> this.deadLettered.add(record);
	}

	/**
	 * Takes the ledger down and sends records to every partition, then waits until the listener
	 * holds every partition paused.
	 * @param pausedPartitions reads the listener's paused partitions from the scrape
	 */
	void outageBegins(DoubleSupplier pausedPartitions) {
		ContainerTestUtils.waitForAssignment(this.registry.getObject().getListenerContainer(LISTENER), PARTITIONS);
		this.down = true;
		int first = this.sent.size();
		for (int i = first; i < first + 30; i++) {
			String key = "quote-" + i;
			this.template.getObject().send(TOPIC, i % PARTITIONS, key, "ACME " + i).join();
			this.sent.add(key);
		}
		await(Duration.ofSeconds(30), () -> pausedPartitions.getAsDouble() == PARTITIONS,
				"every partition of " + LISTENER + " paused");
	}

	/** Brings the ledger back, waits until every record sent is written, and says that none was dead-lettered. */
	void outageEnds() {
		this.down = false;
		await(Duration.ofSeconds(30), () -> this.written.containsAll(this.sent),
				() -> "every record sent written (" + this.written.size() + " of " + this.sent.size() + ", "
						+ this.deadLettered.size() + " dead-lettered)");
		assertThat(this.deadLettered).as("records dead-lettered").isEmpty();
	}

	boolean isDown() {
		return this.down;
	}

	/** Brings the ledger back, and waits for nothing. */
	void back() {
		this.down = false;
	}

	static void await(Duration timeout, BooleanSupplier condition, String what) {
		await(timeout, condition, () -> what);
	}

	static void await(Duration timeout, BooleanSupplier condition, Supplier<String> what) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Not within " + timeout + ": " + what.get());
			}
			try {
				TimeUnit.MILLISECONDS.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError(ex);
			}
		}
	}

}
