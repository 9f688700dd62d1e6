package dev.backoff.autoconfigure.kafka;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.backoff.spring.kafka.KafkaOutages;
import dev.backoff.spring.kafka.ListenerOutage;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Says which Kafka listeners have been in an outage for {@code backoff.kafka.outage-alert-after}
 * or longer: {@link #OUTAGE} then, {@code UP} otherwise, with every listener in an outage in the
 * details (its policy, its paused partitions, since when, for how long, and whether it is past
 * the alert).
 * <p>
 * Not {@code DOWN}: the listener's downstream is failing, not this instance, and its paused
 * partitions are outage mode working as meant. Spring Boot's status aggregator leaves out a status
 * that is not in {@code management.endpoint.health.status.order}, so out of the box the
 * application's health stays {@code UP} (no probe restarts or unroutes every consumer of a group
 * for a downstream's outage) while this component says {@code OUTAGE}; an application that wants
 * the outage in its aggregate health adds it to the order (and to
 * {@code management.endpoint.health.status.http-mapping}).
 */
public class KafkaOutagesHealthIndicator extends AbstractHealthIndicator {

	/** A listener has been in an outage for {@code backoff.kafka.outage-alert-after} or longer. */
	public static final Status OUTAGE = new Status("OUTAGE",
			"A Kafka listener has been in an outage for backoff.kafka.outage-alert-after or longer");

	private final Supplier<List<ListenerOutage>> listeners;

	private final Clock clock;

	private final Duration alertAfter;

	/**
	 * @param outages the application's outages
	 * @param clock the clock {@link ListenerOutage#since()} is read against (the one {@code outages} has)
	 */
	public KafkaOutagesHealthIndicator(KafkaOutages outages, Clock clock) {
		this(outages::listeners, clock, outages.getAlertAfter());
	}

	KafkaOutagesHealthIndicator(Supplier<List<ListenerOutage>> listeners, Clock clock, Duration alertAfter) {
		super("Kafka outages health check failed");
		this.listeners = listeners;
		this.clock = clock;
		this.alertAfter = alertAfter;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		Instant now = this.clock.instant();
		Map<String, Map<String, Object>> inOutage = new LinkedHashMap<>();
		boolean alerting = false;
		for (ListenerOutage listener : this.listeners.get()) {
			Instant since = listener.since();
			if (since == null) {
				continue;
			}
			Duration lasted = Duration.between(since, now);
			boolean past = lasted.compareTo(this.alertAfter) >= 0;
			alerting |= past;
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("policy", listener.policy());
			details.put("pausedPartitions", listener.pausedPartitions().stream().map(Object::toString).sorted().toList());
			details.put("since", since.toString());
			details.put("lasted", lasted.toString());
			details.put("alerting", past);
			inOutage.put(listener.listenerId(), details);
		}
		builder.status(alerting ? OUTAGE : Status.UP)
			.withDetail("outageAlertAfter", this.alertAfter.toString())
			.withDetail("listeners", inOutage);
	}

}
