package dev.backoff.spring.metrics;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.backoff.spring.kafka.KafkaOutageListener;
import dev.backoff.spring.kafka.KafkaOutages;
import dev.backoff.spring.kafka.ListenerOutage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * The meters of the outages of Kafka listeners wired under a policy, each tagged {@code policy}
 * and {@code method} (the listener's id, as its {@code backoff.calls} are):
 * <ul>
 * <li>{@value #PAUSED_PARTITIONS}: the partitions Backoff holds paused now;</li>
 * <li>{@value #PAUSED}: how long the listener has been in its current outage, from its first
 * partition paused (0 when it flows);</li>
 * <li>{@value #ALERT_AFTER}: {@code backoff.kafka.outage-alert-after}, which the health
 * contributor and the alert rule compare {@value #PAUSED} with;</li>
 * <li>{@value #PROBES}: the probes, by {@code outcome} ({@code success}, {@code failure});</li>
 * <li>{@value #HELD_BACK}: the records held back by an outage, left for a later delivery.</li>
 * </ul>
 * The gauges read {@link KafkaOutages#listeners()}, the one record of which partitions are
 * paused. A listener's meters are registered by {@link #registerListeners()} (which Spring Boot
 * calls once the context is refreshed, its listeners wired) or at its first event, the counters at
 * 0, so that the first probe or record held back is an increase for a registry that Prometheus
 * reads (listeners are few, unlike methods: six meters each).
 */
public class KafkaOutageMetrics implements MeterBinder, KafkaOutageListener {

	/** Partitions of a listener that Backoff holds paused now. */
	public static final String PAUSED_PARTITIONS = "backoff.kafka.paused.partitions";

	/** How long a listener has been in its current outage (0 when it flows). */
	public static final String PAUSED = "backoff.kafka.paused";

	/** {@code backoff.kafka.outage-alert-after}, per listener, for the alert rule to compare with. */
	public static final String ALERT_AFTER = "backoff.kafka.outage.alert.after";

	/** Probes of a listener's outage, by outcome. */
	public static final String PROBES = "backoff.kafka.probes";

	/** Records held back by an outage: not recovered, left uncommitted for a later delivery. */
	public static final String HELD_BACK = "backoff.kafka.held.back";

	private final Supplier<List<ListenerOutage>> listeners;

	private final Clock clock;

	private final Duration alertAfter;

	private final Map<String, Meters> meters = new ConcurrentHashMap<>();

	private volatile @Nullable MeterRegistry registry;

	/**
	 * @param outages the application's outages, whose listeners are metered
	 * @param clock the clock {@link ListenerOutage#since()} is read against (the one {@code outages} has)
	 */
	public KafkaOutageMetrics(KafkaOutages outages, Clock clock) {
		this(outages::listeners, clock, outages.getAlertAfter());
		outages.addListener(this);
	}

	/**
	 * @param listeners the listeners and their state, as {@link KafkaOutages#listeners()} gives them
	 * @param clock the clock {@link ListenerOutage#since()} is read against
	 * @param alertAfter {@code backoff.kafka.outage-alert-after}
	 */
	KafkaOutageMetrics(Supplier<List<ListenerOutage>> listeners, Clock clock, Duration alertAfter) {
		this.listeners = listeners;
		this.clock = clock;
		this.alertAfter = alertAfter;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registry = registry;
		registerListeners();
	}

	/**
	 * Registers the meters of every listener wired by now, at 0; idempotent. Listeners wired after
	 * the registry was bound get theirs here, or at their first event.
	 */
	public void registerListeners() {
		for (ListenerOutage listener : this.listeners.get()) {
			meters(listener.listenerId(), listener.policy());
		}
	}

	@Override
	public void paused(String listenerId, String policy, TopicPartition partition) {
		meters(listenerId, policy);
	}

	@Override
	public void resumed(String listenerId, String policy, TopicPartition partition, Duration paused) {
		meters(listenerId, policy);
	}

	@Override
	public void probed(String listenerId, String policy, boolean succeeded) {
		Meters meters = meters(listenerId, policy);
		if (meters != null) {
			(succeeded ? meters.probeSuccesses() : meters.probeFailures()).increment();
		}
	}

	@Override
	public void heldBack(String listenerId, String policy, ConsumerRecord<?, ?> record) {
		Meters meters = meters(listenerId, policy);
		if (meters != null) {
			meters.heldBack().increment();
		}
	}

	/** @return the listener's meters, registered at the first call; {@code null} before the registry is bound */
	private @Nullable Meters meters(String listenerId, String policy) {
		MeterRegistry registry = this.registry;
		if (registry == null) {
			return null;
		}
		return this.meters.computeIfAbsent(listenerId, (id) -> register(registry, id, policy));
	}

	private Meters register(MeterRegistry registry, String listenerId, String policy) {
		Gauge.builder(PAUSED_PARTITIONS, this, (metrics) -> metrics.pausedPartitions(listenerId))
			.tag("policy", policy)
			.tag("method", listenerId)
			.description("Partitions of the listener that Backoff holds paused now, in an outage")
			.strongReference(true)
			.register(registry);
		TimeGauge.builder(PAUSED, this, TimeUnit.MILLISECONDS, (metrics) -> metrics.pausedMillis(listenerId))
			.tag("policy", policy)
			.tag("method", listenerId)
			.description("How long the listener has been in its current outage, from its first partition paused; "
					+ "0 when it flows")
			.strongReference(true)
			.register(registry);
		TimeGauge.builder(ALERT_AFTER, this, TimeUnit.MILLISECONDS, (metrics) -> metrics.alertAfter.toMillis())
			.tag("policy", policy)
			.tag("method", listenerId)
			.description("backoff.kafka.outage-alert-after: an outage longer than this is reported")
			.strongReference(true)
			.register(registry);
		return new Meters(probes(registry, listenerId, policy, "success"), probes(registry, listenerId, policy, "failure"),
				Counter.builder(HELD_BACK)
					.tag("policy", policy)
					.tag("method", listenerId)
					.description("Records held back by an outage: not recovered, left uncommitted for a later delivery")
					.register(registry));
	}

	private static Counter probes(MeterRegistry registry, String listenerId, String policy, String outcome) {
		return Counter.builder(PROBES)
			.tag("policy", policy)
			.tag("method", listenerId)
			.tag("outcome", outcome)
			.description("Probes of the listener's outage (one record tried after a pause), by outcome")
			.register(registry);
	}

	private double pausedPartitions(String listenerId) {
		ListenerOutage outage = find(listenerId);
		return (outage != null) ? outage.pausedPartitions().size() : 0;
	}

	private double pausedMillis(String listenerId) {
		ListenerOutage outage = find(listenerId);
		if (outage == null || outage.since() == null) {
			return 0;
		}
		// Never negative, should the clock step back.
		return Math.max(0, Duration.between(outage.since(), this.clock.instant()).toMillis());
	}

	private @Nullable ListenerOutage find(String listenerId) {
		for (ListenerOutage outage : this.listeners.get()) {
			if (outage.listenerId().equals(listenerId)) {
				return outage;
			}
		}
		return null;
	}

	private record Meters(Counter probeSuccesses, Counter probeFailures, Counter heldBack) {
	}

}
