package dev.backoff.spring.metrics;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.backoff.spring.kafka.ListenerOutage;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The meters of Kafka listeners' outages, read from a real registry: the gauges follow the
 * outages' state as {@code KafkaOutages.listeners()} gives it, the counters the events it tells.
 */
class KafkaOutageMetricsTests {

	private static final Instant NOW = Instant.parse("2026-11-28T08:00:00Z");

	private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);

	private static final TopicPartition ORDERS_2 = new TopicPartition("orders", 2);

	private final List<ListenerOutage> listeners = new ArrayList<>(
			List.of(new ListenerOutage("orders", "payments", Set.of(), null)));

	private final KafkaOutageMetrics metrics = new KafkaOutageMetrics(() -> List.copyOf(this.listeners),
			Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofMinutes(5));

	private final MeterRegistry registry = new SimpleMeterRegistry();

	@Test
	void everyWiredListenerHasItsMetersAtZeroOnceBound() {
		this.metrics.bindTo(this.registry);
		assertThat(gauge(KafkaOutageMetrics.PAUSED_PARTITIONS)).isZero();
		assertThat(seconds(KafkaOutageMetrics.PAUSED)).isZero();
		assertThat(seconds(KafkaOutageMetrics.ALERT_AFTER)).isEqualTo(300);
		assertThat(probes("success")).isZero();
		assertThat(probes("failure")).isZero();
		assertThat(heldBack()).isZero();
	}

	@Test
	void theGaugesReadTheOutageAsItIsNow() {
		this.metrics.bindTo(this.registry);
		inOutage(Set.of(ORDERS_0, ORDERS_2), NOW.minusSeconds(90));
		assertThat(gauge(KafkaOutageMetrics.PAUSED_PARTITIONS)).isEqualTo(2);
		assertThat(seconds(KafkaOutageMetrics.PAUSED)).isEqualTo(90);
		// A probe succeeded: the listener flows again.
		this.listeners.set(0, new ListenerOutage("orders", "payments", Set.of(), null));
		assertThat(gauge(KafkaOutageMetrics.PAUSED_PARTITIONS)).isZero();
		assertThat(seconds(KafkaOutageMetrics.PAUSED)).isZero();
	}

	@Test
	void probesAreCountedByOutcomeAndRecordsHeldBack() {
		this.metrics.bindTo(this.registry);
		this.metrics.heldBack("orders", "payments", new ConsumerRecord<>("orders", 0, 41, "key", "value"));
		this.metrics.heldBack("orders", "payments", new ConsumerRecord<>("orders", 2, 7, "key", "value"));
		this.metrics.probed("orders", "payments", false);
		this.metrics.probed("orders", "payments", false);
		this.metrics.probed("orders", "payments", true);
		assertThat(heldBack()).isEqualTo(2);
		assertThat(probes("failure")).isEqualTo(2);
		assertThat(probes("success")).isEqualTo(1);
	}

	@Test
	void aListenerWiredAfterTheBindingGetsItsMetersAtItsFirstEventOrWhenRegistered() {
		this.metrics.bindTo(this.registry);
		this.listeners.add(new ListenerOutage("invoices", "billing", Set.of(), null));
		assertThat(this.registry.find(KafkaOutageMetrics.HELD_BACK).tag("method", "invoices").counter()).isNull();
		this.metrics.registerListeners();
		assertThat(this.registry.get(KafkaOutageMetrics.HELD_BACK).tag("method", "invoices").tag("policy", "billing")
			.counter()
			.count()).isZero();
		this.metrics.paused("refunds", "billing", new TopicPartition("refunds", 1));
		assertThat(this.registry.get(KafkaOutageMetrics.PROBES).tag("method", "refunds").tag("outcome", "failure")
			.counter()
			.count()).isZero();
	}

	@Test
	void eventsBeforeTheBindingAreNotCountedAndFailNothing() {
		this.metrics.probed("orders", "payments", false);
		this.metrics.heldBack("orders", "payments", new ConsumerRecord<>("orders", 0, 41, "key", "value"));
		this.metrics.bindTo(this.registry);
		assertThat(probes("failure")).isZero();
		assertThat(heldBack()).isZero();
	}

	private void inOutage(Set<TopicPartition> paused, Instant since) {
		this.listeners.set(0, new ListenerOutage("orders", "payments", paused, since));
	}

	private double gauge(String name) {
		return this.registry.get(name).tag("policy", "payments").tag("method", "orders").gauge().value();
	}

	private double seconds(String name) {
		return this.registry.get(name).tag("policy", "payments").tag("method", "orders").timeGauge()
			.value(TimeUnit.SECONDS);
	}

	private double probes(String outcome) {
		return this.registry.get(KafkaOutageMetrics.PROBES).tag("policy", "payments").tag("method", "orders")
			.tag("outcome", outcome)
			.counter()
			.count();
	}

	private double heldBack() {
		return this.registry.get(KafkaOutageMetrics.HELD_BACK).tag("policy", "payments").tag("method", "orders")
			.counter()
			.count();
	}

}
