package dev.backoff.spring.kafka;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicLong;

import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.Outcome;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.BackoffSettings;
import dev.backoff.spring.config.PolicySettings;
import dev.backoff.spring.operation.BackoffOperationSource;
import dev.backoff.spring.retry.BackoffRetries;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.kafka.listener.MessageListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link KafkaListenerRetries} decides for each failed delivery in outage mode, without a
 * broker, on a clock of the test's: a retry the budget refuses holds the record's partition; a
 * failed probe while nothing else succeeds counts for nothing; a failure after another record's
 * success counts, so a poison record still ends after exactly max-attempts deliveries; and a
 * held record's cycle ends in a success, never {@code budget_exhausted} or {@code exhausted}.
 */
class KafkaListenerRetriesOutageTests {

	private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

	private final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

	private final AtomicLong nanos = new AtomicLong();

	@AfterEach
	void stop() {
		this.scheduler.shutdownNow();
	}

	@Test
	void aPoisonRecordWhoseThirdRetryTheBudgetRefusesEndsAfterExactlyMaxAttemptsDeliveries() {
		KafkaListenerRetries retries = retries(5);
		KafkaListenerOutage outage = retries.outage();
		ConsumerRecord<?, ?> poison = record(0, 0);
		// Deliveries 1 and 2 fail: retried as the policy says.
		assertThat(retries.holds(poison, failure())).isFalse();
		assertThat(retries.holds(poison, failure())).isFalse();
		// Delivery 3 fails and the budget (2 of 5 tokens left) refuses the retry: held, not recovered.
		assertThat(retries.holds(poison, failure())).isTrue();
		assertThat(outage.isHeld(partition(0))).isTrue();
		// A probe that fails while nothing else succeeds is the outage's: it counts for nothing.
		assertThat(retries.holds(poison, failure())).isTrue();
		assertThat(retries.holds(poison, failure())).isTrue();
		// Another partition's record succeeds: the next failed delivery is the record's own, its fourth and last.
		retries.succeeded(record(1, 0));
		assertThat(retries.holds(poison, failure())).as("recovered: not held").isFalse();
		assertThat(this.outcomes).containsExactly(Outcome.SUCCESS, Outcome.EXHAUSTED);
	}

	@Test
	void aRecordHeldByAnOutageEndsInASuccessAfterRetryOnceTheDownstreamIsBack() {
		KafkaListenerRetries retries = retries(4);
		KafkaListenerOutage outage = retries.outage();
		ConsumerRecord<?, ?> first = record(0, 0);
		assertThat(retries.holds(first, failure())).isFalse();
		assertThat(retries.holds(first, failure())).isTrue();
		// The budget refuses at once for the other partitions' records: each partition is held.
		assertThat(retries.holds(record(1, 0), failure())).isTrue();
		assertThat(retries.holds(record(2, 0), failure())).isTrue();
		assertThat(outage.state().pausedPartitions()).containsExactlyInAnyOrder(partition(0), partition(1),
				partition(2));
		assertThat(outage.state().since()).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
		// Ten failed probes: none counts, none ends a cycle.
		for (int i = 0; i < 10; i++) {
			assertThat(retries.holds(first, failure())).isTrue();
		}
		assertThat(this.outcomes).isEmpty();
		retries.succeeded(first);
		assertThat(this.outcomes).containsExactly(Outcome.SUCCESS_AFTER_RETRY);
	}

	@Test
	void aFailureThePolicyNeverRetriesGoesToTheRecovererAtOnceEvenFromAHeldPartition() {
		KafkaListenerRetries retries = retries(4);
		ConsumerRecord<?, ?> first = record(0, 0);
		retries.holds(first, failure());
		assertThat(retries.holds(first, failure())).isTrue();
		// abort-on: the probe's record fails with what the policy never retries: it is the record's, not the outage's.
		assertThat(retries.holds(first, new UnsupportedOperationException("not for us"))).isFalse();
		assertThat(this.outcomes).containsExactly(Outcome.NOT_RETRYABLE);
	}

	@Test
	void aPartitionRevokedDuringAnOutageEndsItsHeldRecordsCycles() {
		KafkaListenerRetries retries = retries(4);
		ConsumerRecord<?, ?> held = record(0, 0);
		retries.holds(held, failure());
		assertThat(retries.holds(held, failure())).isTrue();
		retries.revoked(List.of(partition(1)));
		assertThat(this.outcomes).isEmpty();
		// Another consumer has the record now: its cycle here ends, interrupted.
		retries.revoked(List.of(partition(0)));
		assertThat(this.outcomes).containsExactly(Outcome.INTERRUPTED);
	}

	private KafkaListenerRetries retries(double maxTokens) {
		PolicySettings orders = new PolicySettings();
		orders.setMaxAttempts(4);
		orders.setBaseDelay(Duration.ofMillis(10));
		orders.getBudget().setMaxTokens(maxTokens);
		orders.setAbortOn(List.of(UnsupportedOperationException.class.getName()));
		BackoffSettings settings = new BackoffSettings();
		settings.getPolicies().put("orders", orders);
		BackoffListener outcomes = new BackoffListener() {

			@Override
			public void onSuccess(Outcome outcome, int attempts) {
				KafkaListenerRetriesOutageTests.this.outcomes.add(outcome);
			}

			@Override
			public void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
				KafkaListenerRetriesOutageTests.this.outcomes.add(outcome);
			}

		};
		BackoffOperationSource source = BackoffOperationSource.create(
				BackoffPolicies.of(settings, null, BackoffPolicy.defaults(), null), BackoffExecutor.builder().build(),
				this.scheduler, List.of(outcomes), List.of(), (value) -> value, null);
		KafkaOutages outages = new KafkaOutages(Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC),
				Duration.ofMinutes(5));
		SplittableRandom random = new SplittableRandom(7);
		KafkaListenerOutage outage = new KafkaListenerOutage("orders", "orders", container(), outages,
				Duration.ofMillis(100), Duration.ofMillis(200), this.nanos::get, () -> random);
		return new KafkaListenerRetries(new BackoffRetries(source).backOff("orders", "orders"), outage);
	}

	/** A container that is never started: the decisions need none running. */
	private static KafkaMessageListenerContainer<Object, Object> container() {
		ContainerProperties properties = new ContainerProperties("orders");
		properties.setMessageListener((MessageListener<Object, Object>) (record) -> {
		});
		return new KafkaMessageListenerContainer<>(new DefaultKafkaConsumerFactory<>(Map.of()), properties);
	}

	private static ConsumerRecord<?, ?> record(int partition, long offset) {
		return new ConsumerRecord<>("orders", partition, offset, null, "order");
	}

	private static TopicPartition partition(int partition) {
		return new TopicPartition("orders", partition);
	}

	private static Exception failure() {
		return new IllegalStateException("downstream unavailable");
	}

}
