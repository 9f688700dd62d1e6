package dev.backoff.autoconfigure.kafka;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.backoff.Backoff;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import dev.backoff.spring.kafka.KafkaOutages;
import dev.backoff.spring.kafka.ListenerOutage;
import dev.backoff.spring.metrics.KafkaOutageMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.kafka.annotation.KafkaListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The health contributor and the meters of Kafka listeners' outages: which listeners have been in
 * an outage for {@code backoff.kafka.outage-alert-after} or longer, how Spring Boot aggregates
 * that, the meters' names in a Prometheus scrape, and a wired listener's meters at 0 on the shared
 * in-JVM broker.
 */
class KafkaOutagesHealthTests {

	private static final Instant NOW = Instant.parse("2026-11-28T08:00:00Z");

	private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffKafkaOutagesAutoConfiguration.class,
				HealthContributorAutoConfiguration.class, HealthContributorRegistryAutoConfiguration.class,
				HealthEndpointAutoConfiguration.class))
		.withBean(KafkaOutages.class, () -> new KafkaOutages(CLOCK, Duration.ofMinutes(5)));

	@Test
	void noListenerInAnOutageIsUp() {
		Health health = indicator(new ListenerOutage("orders", "payments", Set.of(), null)).health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("outageAlertAfter", "PT5M").containsEntry("listeners", Map.of());
	}

	@Test
	void anOutageShorterThanTheAlertIsUpAndListed() {
		Health health = indicator(new ListenerOutage("orders", "payments",
				Set.of(new TopicPartition("orders", 2), new TopicPartition("orders", 0)), NOW.minusSeconds(299)))
			.health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails().get("listeners")).isEqualTo(Map.of("orders",
				Map.of("policy", "payments", "pausedPartitions", List.of("orders-0", "orders-2"), "since",
						"2026-11-28T07:55:01Z", "lasted", "PT4M59S", "alerting", false)));
	}

	@Test
	void anOutageOfTheAlertOrLongerIsOutageNamingTheListener() {
		Health health = indicator(new ListenerOutage("orders", "payments", Set.of(new TopicPartition("orders", 0)),
				NOW.minusSeconds(300)), new ListenerOutage("invoices", "billing", Set.of(), null),
				new ListenerOutage("refunds", "billing", Set.of(new TopicPartition("refunds", 1)), NOW.minusSeconds(10)))
			.health();
		assertThat(health.getStatus()).isEqualTo(KafkaOutagesHealthIndicator.OUTAGE);
		assertThat(health.getStatus().getCode()).isEqualTo("OUTAGE");
		@SuppressWarnings("unchecked")
		Map<String, Map<String, Object>> listeners = (Map<String, Map<String, Object>>) health.getDetails()
			.get("listeners");
		assertThat(listeners).containsOnlyKeys("orders", "refunds");
		assertThat(listeners.get("orders")).containsEntry("alerting", true).containsEntry("lasted", "PT5M");
		assertThat(listeners.get("refunds")).containsEntry("alerting", false);
	}

	@Test
	void theContributorIsNamedAfterItsBeanAndTheApplicationStaysUpWhileItSaysOutage() {
		this.runner.withBean("backoffKafkaOutagesHealthIndicator", KafkaOutagesHealthIndicator.class,
				() -> indicator(new ListenerOutage("orders", "payments", Set.of(new TopicPartition("orders", 0)),
						NOW.minus(Duration.ofMinutes(6)))))
			.run((context) -> {
				HealthEndpoint endpoint = context.getBean(HealthEndpoint.class);
				// Boot's aggregator leaves out a status not in management.endpoint.health.status.order.
				assertThat(endpoint.health().getStatus()).isEqualTo(Status.UP);
				assertThat(endpoint.healthForPath("backoffKafkaOutages").getStatus().getCode()).isEqualTo("OUTAGE");
			});
	}

	@Test
	void anApplicationThatOrdersTheOutageStatusHasItInItsHealth() {
		this.runner
			.withBean("backoffKafkaOutagesHealthIndicator", KafkaOutagesHealthIndicator.class,
					() -> indicator(new ListenerOutage("orders", "payments", Set.of(new TopicPartition("orders", 0)),
							NOW.minus(Duration.ofMinutes(6)))))
			.withPropertyValues("management.endpoint.health.status.order=down,outage,out-of-service,up,unknown")
			.run((context) -> assertThat(context.getBean(HealthEndpoint.class).health().getStatus().getCode())
				.isEqualTo("OUTAGE"));
	}

	@Test
	void theContributorIsThereWithTheOutagesBean() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(KafkaOutagesHealthIndicator.class);
			assertThat(context.getBean(HealthContributorRegistry.class).getContributor("backoffKafkaOutages"))
				.isSameAs(context.getBean(KafkaOutagesHealthIndicator.class));
			// No listener wired: nothing in an outage.
			assertThat(context.getBean(KafkaOutagesHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
		});
	}

	@Test
	void theContributorCanBeSwitchedOff() {
		this.runner.withPropertyValues("management.health.backoff-kafka-outages.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(KafkaOutagesHealthIndicator.class));
	}

	@Test
	void noContributorWithoutBootsHealthModule() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(BackoffKafkaOutagesAutoConfiguration.class))
			.withBean(KafkaOutages.class, () -> new KafkaOutages(CLOCK, Duration.ofMinutes(5)))
			.withClassLoader(new FilteredClassLoader(Health.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(KafkaOutagesHealthIndicator.class));
	}

	@Test
	void noContributorAndNoMetersWithoutTheOutagesBean() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BackoffKafkaOutagesAutoConfiguration.class,
					HealthContributorAutoConfiguration.class))
			.withBean(MeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
			.run((context) -> assertThat(context).doesNotHaveBean(KafkaOutagesHealthIndicator.class)
				.doesNotHaveBean(KafkaOutageMetrics.class));
	}

	@Test
	void theMetersInAPrometheusScrape() {
		this.runner.withBean(MeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
			.run((context) -> {
				KafkaOutageMetrics metrics = context.getBean(KafkaOutageMetrics.class);
				metrics.bindTo(context.getBean(MeterRegistry.class));
				// As KafkaOutages tells it: the listener's meters registered at its first event.
				metrics.probed("orders", "payments", false);
				String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
				assertThat(scrape).contains("backoff_kafka_paused_partitions{method=\"orders\",policy=\"payments\"} 0.0")
					.contains("backoff_kafka_paused_seconds{method=\"orders\",policy=\"payments\"} 0.0")
					.contains("backoff_kafka_outage_alert_after_seconds{method=\"orders\",policy=\"payments\"} 300.0")
					.contains("backoff_kafka_probes_total{method=\"orders\",outcome=\"failure\",policy=\"payments\"} 1.0")
					.contains("backoff_kafka_probes_total{method=\"orders\",outcome=\"success\",policy=\"payments\"} 0.0")
					.contains("backoff_kafka_held_back_total{method=\"orders\",policy=\"payments\"} 0.0");
			});
	}

	/**
	 * A listener wired as its container starts, after the registry bound the meters: its meters
	 * are there at 0 before anything happened to it, from the context's refresh.
	 */
	@Test
	void aWiredListenersMetersAreThereAtZeroBeforeItsFirstOutage() {
		KafkaTestBroker.get("outage-wired");
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class, BackoffAutoConfiguration.class,
					BackoffMetricsAutoConfiguration.class, KafkaAutoConfiguration.class,
					BackoffKafkaAutoConfiguration.class, BackoffKafkaOutagesAutoConfiguration.class))
			.withBean(WiredListener.class)
			.withPropertyValues("spring.kafka.bootstrap-servers=" + KafkaTestBroker.get().getBrokersAsString(),
					"backoff.policies.down.max-attempts=4", "backoff.policies.down.budget.max-tokens=5")
			.run((context) -> {
				assertThat(context.getBean(KafkaOutages.class).listeners()).extracting(ListenerOutage::listenerId)
					.containsExactly("wired");
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get(KafkaOutageMetrics.HELD_BACK).tag("method", "wired").tag("policy", "down")
					.counter()
					.count()).isZero();
				assertThat(registry.get(KafkaOutageMetrics.PROBES).tag("method", "wired").tag("outcome", "failure")
					.counter()
					.count()).isZero();
				assertThat(registry.get(KafkaOutageMetrics.PAUSED_PARTITIONS).tag("method", "wired").gauge().value())
					.isZero();
				assertThat(context.getBean(KafkaOutagesHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
			});
	}

	static class WiredListener {

		@KafkaListener(id = "wired", topics = "outage-wired")
		@Backoff("down")
		void on(String record) {
		}

	}

	private static KafkaOutagesHealthIndicator indicator(ListenerOutage... listeners) {
		return new KafkaOutagesHealthIndicator(() -> List.of(listeners), CLOCK, Duration.ofMinutes(5));
	}

}
