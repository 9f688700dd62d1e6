package dev.backoff.sample.monitoring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.backoff.sample.SampleAppTest;

import org.springframework.context.annotation.Import;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.TestPropertySource;

/**
 * The sample as {@link SampleAppTest} starts it, with a Kafka listener under a policy with a
 * budget ({@link QuoteLedger}) on an in-JVM broker, so that the monitoring tests' traffic has
 * an outage of a consumer too. One context, shared by the monitoring tests, on the JVM only:
 * Spring Kafka's {@link EmbeddedKafka} is {@code @DisabledInAotMode}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@SampleAppTest
@Import(QuoteLedger.class)
@EmbeddedKafka(partitions = QuoteLedger.PARTITIONS, topics = QuoteLedger.TOPIC,
		bootstrapServersProperty = "spring.kafka.bootstrap-servers")
// A database of its own: another context's schema.sql would find its tables there already.
@TestPropertySource(properties = { "spring.datasource.url=jdbc:h2:mem:backoff-sample-monitoring;DB_CLOSE_DELAY=-1",
		"backoff.policies.ledger.max-attempts=4", "backoff.policies.ledger.base-delay=10ms",
		"backoff.policies.ledger.max-delay=10ms",
		// Refuses the third retry: a record of an outage is held back after three deliveries,
		// before a fourth would send it to the recoverer.
		"backoff.policies.ledger.budget.max-tokens=5", "backoff.kafka.outage-probe-delay=100ms",
		"backoff.kafka.outage-max-pause=300ms", "backoff.kafka.outage-alert-after=1s",
		"spring.kafka.consumer.auto-offset-reset=earliest",
		// A fetch waits less than a probe's pause (docs/messaging.md, outage-probe-delay).
		"spring.kafka.consumer.fetch-max-wait=20ms", "spring.kafka.consumer.heartbeat-interval=100ms",
		// The listener's health in its details: /actuator/health/backoffKafkaOutages answers only
		// where components are shown.
		"management.endpoint.health.show-details=always",
		// Without the Kafka clients' own meters (hundreds of series), the scrape stays as quick as the
		// other contexts' for the real Prometheus's 100ms scrape timeout (PrometheusTests).
		"management.metrics.enable.kafka=false",
		// The longest wait (backoff_delay_seconds_max) kept for the whole traffic: Prometheus's
		// registry keeps a max for one step (1m) by default, and a loaded machine's two rounds with
		// the ledger's outage can outlast it before BackoffWaitsNearCeiling's query reads it.
		"management.metrics.distribution.expiry.backoff.delay=5m" })
@interface MonitoredSampleTest {

}
