package dev.backoff.autoconfigure.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.BackoffFailureAnalyzer;
import dev.backoff.autoconfigure.actuate.BackoffEndpoint;
import dev.backoff.autoconfigure.actuate.BackoffEndpointAutoConfiguration;
import dev.backoff.autoconfigure.actuate.ListenerStates.ListenerDescriptor;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.kafka.KafkaOutageListener;
import dev.backoff.spring.kafka.KafkaOutages;
import dev.backoff.spring.kafka.ListenerOutage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ConsumerAwareRebalanceListener;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.MessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Outage mode on the shared in-JVM broker ({@link KafkaTestBroker}): a listener whose policy's
 * budget refuses a retry pauses the failing partitions, probes after short pauses (100 to 200 ms
 * here), recovers no record of the outage, and takes every record once the downstream is back;
 * a poison record among healthy traffic still reaches the recoverer after exactly max-attempts
 * deliveries. Each test has its topics of three partitions and its consumer group.
 */
class BackoffKafkaOutageTests {

	private static final Duration WITHIN = Duration.ofSeconds(15);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class,
				BackoffEndpointAutoConfiguration.class, KafkaAutoConfiguration.class, BackoffKafkaAutoConfiguration.class))
		.withUserConfiguration(DownstreamConfiguration.class)
		// A fetch waits at most 20 ms for records, less than a probe's pause here: with the default 500 ms, the
		// partitions sought back after a failed probe would come back after the next probe.
		// Heartbeats every 100 ms: a consumer learns of a rebalance (one joining, one stopped) at its next.
		.withPropertyValues("spring.kafka.consumer.auto-offset-reset=earliest",
				"spring.kafka.consumer.heartbeat-interval=100ms",
				"management.endpoints.web.exposure.include=backoff", "spring.kafka.consumer.fetch-max-wait=20ms", "backoff.policies.down.max-attempts=4", "backoff.policies.down.base-delay=10ms",
				"backoff.policies.down.max-delay=20ms", "backoff.policies.down.budget.max-tokens=5",
				"backoff.kafka.outage-probe-delay=100ms", "backoff.kafka.outage-max-pause=200ms");

	@BeforeAll
	static void topics() {
		KafkaTestBroker.get();
		KafkaTestBroker.topics(3, "outage-three", "poison-5", "poison-7", "joining", "outage-batch", "app-pause",
				"outage-restart");
	}

	private ApplicationContextRunner on(String topic, String... properties) {
		return this.runner.withBean(RecordListener.class)
			.withPropertyValues("spring.kafka.bootstrap-servers=" + KafkaTestBroker.get().getBrokersAsString(),
					"test.topic=" + topic)
			.withPropertyValues(properties);
	}

	@Test
	void anOutageOnThreePartitionsPausesThemRecoversNothingAndTakesEveryRecordOnceTheDownstreamIsBack() {
		on("outage-three", "spring.kafka.listener.concurrency=2").run((context) -> {
			assertThat(context).hasNotFailed();
			Downstream downstream = context.getBean(Downstream.class);
			Recorded recorded = record(context);
			MessageListenerContainer container = assigned(context, 3);
			// Concurrency 2: two consumers, one gate for the listener.
			List<? extends MessageListenerContainer> children = ((ConcurrentMessageListenerContainer<?, ?>) container)
				.getContainers();
			assertThat(children).hasSize(2);
			Awaitility.await().atMost(WITHIN).until(() -> children.stream().allMatch(
					(child) -> child.getAssignedPartitions() != null && !child.getAssignedPartitions().isEmpty()));
			downstream.revoked.clear();
			send(context, "outage-three", 30);
			Awaitility.await().atMost(WITHIN).until(() -> held(context).size() == 3);
			assertThat(outage(context).since()).isNotNull();
			// GET /actuator/backoff lists the listener with its paused partitions and since when.
			ListenerDescriptor listed = context.getBean(BackoffEndpoint.class).policies().listeners().get("down");
			assertThat(listed.policy()).isEqualTo("down");
			assertThat(listed.pausedPartitions()).containsExactly("outage-three-0", "outage-three-1", "outage-three-2");
			assertThat(Instant.parse(listed.since())).isBefore(Instant.now());
			int callsWhenHeld = downstream.calls.get();
			// The outage goes on for 1 s: only probes reach the downstream, one per 100 to 200 ms pause at most.
			Awaitility.await().during(Duration.ofSeconds(1)).atMost(Duration.ofMillis(1500))
				.until(() -> held(context).size() == 3);
			assertThat(downstream.calls.get() - callsWhenHeld).as("calls during the outage").isBetween(1, 11);
			assertThat(recorded.probes(false)).isPositive();
			// Back within a few probes and a ramp: far less than the container's 5 s poll timeout.
			downstream.up.set(true);
			Awaitility.await().atMost(Duration.ofSeconds(3)).until(() -> downstream.processed.size() == 30);
			assertThat(downstream.recovered).as("recovered").isEmpty();
			assertThat(downstream.revoked).as("partitions revoked").isEmpty();
			assertThat(recorded.paused).containsExactlyInAnyOrderElementsOf(partitions("outage-three"));
			assertThat(recorded.probes(true)).isPositive();
			assertThat(recorded.heldBack.get()).isGreaterThanOrEqualTo(3);
			// Each held record's cycle stays open until it succeeds: none ends exhausted.
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(count(meters, "exhausted") + count(meters, "budget_exhausted")).isZero();
			assertThat(count(meters, "success_after_retry")).isGreaterThanOrEqualTo(3);
			Awaitility.await().atMost(WITHIN).until(() -> outage(context).since() == null);
			assertThat(held(context)).isEmpty();
			assertThat(context.getBean(BackoffEndpoint.class).policies().listeners())
				.containsEntry("down", new ListenerDescriptor("down", List.of(), null));
			// Told on the consumers' threads, at their next poll.
			Awaitility.await().atMost(Duration.ofSeconds(2)).until(() -> recorded.resumed.size() == 3);
			assertThat(recorded.resumed).containsExactlyInAnyOrderElementsOf(partitions("outage-three"));
			// Nothing stays paused once the outage is over: new records on every partition come at once, not
			// after the container's 5 s poll timeout.
			for (int i = 0; i < 3; i++) {
				context.getBean(KafkaTemplate.class).send("outage-three", i, null, "after-" + i);
			}
			Awaitility.await().atMost(Duration.ofSeconds(2)).until(() -> downstream.processed.size() == 33);
		});
	}

	@ParameterizedTest(name = "budget of {0} tokens, max-attempts 4")
	@ValueSource(ints = { 5, 7 })
	void aPoisonRecordAmongHealthyTrafficReachesTheRecovererAfterExactlyMaxAttemptsDeliveries(int tokens) {
		String topic = "poison-" + tokens;
		on(topic, "backoff.policies.down.budget.max-tokens=" + tokens).run((context) -> {
			assertThat(context).hasNotFailed();
			Downstream downstream = context.getBean(Downstream.class);
			downstream.up.set(true);
			downstream.poison = "poison";
			assigned(context, 3);
			KafkaTemplate<Object, Object> template = context.getBean(KafkaTemplate.class);
			template.send(topic, 0, null, "poison");
			template.send(topic, 0, null, "after-poison");
			// Healthy traffic on the other two partitions all along, one record every 20 ms.
			AtomicInteger healthy = new AtomicInteger();
			ScheduledExecutorService traffic = Executors.newSingleThreadScheduledExecutor();
			try {
				traffic.scheduleAtFixedRate(() -> {
					int i = healthy.getAndIncrement();
					template.send(topic, 1 + i % 2, null, "healthy-" + i);
				}, 0, 20, TimeUnit.MILLISECONDS);
				Awaitility.await().atMost(WITHIN).until(() -> downstream.processed.contains("after-poison"));
			}
			finally {
				traffic.shutdownNow();
			}
			assertThat(downstream.recovered).containsExactly("poison");
			assertThat(downstream.deliveries.get("poison")).hasValue(4);
			Awaitility.await().atMost(WITHIN).until(() -> downstream.processed.size() == healthy.get() + 1);
			Awaitility.await().atMost(WITHIN).until(() -> outage(context).since() == null);
		});
	}

	@Test
	void aConsumerJoiningDuringAnOutageHoldsItsPartitionsAndTheFirstKeepsItsOutage() {
		on("joining").run((first) -> {
			assertThat(first).hasNotFailed();
			assigned(first, 3);
			send(first, "joining", 12);
			Awaitility.await().atMost(WITHIN).until(() -> held(first).size() == 3);
			on("joining").run((second) -> {
				assertThat(second).hasNotFailed();
				Awaitility.await().atMost(WITHIN).until(() -> assignedTo(second) > 0 && assignedTo(first) > 0
						&& assignedTo(first) + assignedTo(second) == 3);
				// The first instance's new partitions start held; the second's budget refuses, and it holds its own.
				Awaitility.await().atMost(WITHIN).until(() -> held(first).size() == assignedTo(first)
						&& held(second).size() == assignedTo(second));
				assertThat(outage(first).since()).isNotNull();
				Downstream one = first.getBean(Downstream.class);
				Downstream two = second.getBean(Downstream.class);
				one.up.set(true);
				two.up.set(true);
				Awaitility.await().atMost(WITHIN).until(() -> union(one.processed, two.processed).size() == 12);
				assertThat(one.recovered).isEmpty();
				assertThat(two.recovered).isEmpty();
			});
		});
	}

	@Test
	void aBatchListenerHoldsItsFailingPartitionsAndTakesEveryRecordOnceTheDownstreamIsBack() {
		this.runner.withBean(BatchListener.class)
			.withPropertyValues("spring.kafka.bootstrap-servers=" + KafkaTestBroker.get().getBrokersAsString())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Downstream downstream = context.getBean(Downstream.class);
				assigned(context, 3);
				send(context, "outage-batch", 12);
				Awaitility.await().atMost(WITHIN).until(() -> held(context).size() == 3);
				Awaitility.await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(1))
					.until(() -> downstream.processed.isEmpty());
				downstream.up.set(true);
				Awaitility.await().atMost(WITHIN).until(() -> downstream.processed.size() == 12);
				assertThat(downstream.recovered).isEmpty();
			});
	}

	@Test
	void theApplicationsOwnPausesAndBackoffsDoNotResumeEachOther() {
		on("app-pause").run((context) -> {
			assertThat(context).hasNotFailed();
			Downstream downstream = context.getBean(Downstream.class);
			MessageListenerContainer container = assigned(context, 3);
			send(context, "app-pause", 9);
			Awaitility.await().atMost(WITHIN).until(() -> held(context).size() == 3);
			// The application pauses and resumes a partition of its own: Backoff's pause of it stays.
			TopicPartition first = new TopicPartition("app-pause", 0);
			container.pausePartition(first);
			container.resumePartition(first);
			Awaitility.await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(1))
				.until(() -> downstream.processed.isEmpty() && held(context).size() == 3);
			// The application pauses the container, then the downstream recovers: no probe resumes it.
			container.pause();
			Awaitility.await().atMost(WITHIN).until(container::isContainerPaused);
			downstream.up.set(true);
			Awaitility.await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(1))
				.until(() -> downstream.processed.isEmpty());
			container.resume();
			Awaitility.await().atMost(WITHIN).until(() -> downstream.processed.size() == 9);
			assertThat(downstream.recovered).isEmpty();
		});
	}

	@Test
	void aContainerStoppedAndStartedDuringAnOutageStartsHeld() {
		on("outage-restart").run((context) -> {
			assertThat(context).hasNotFailed();
			Downstream downstream = context.getBean(Downstream.class);
			MessageListenerContainer container = assigned(context, 3);
			send(context, "outage-restart", 6);
			Awaitility.await().atMost(WITHIN).until(() -> held(context).size() == 3);
			container.stop();
			container.start();
			Awaitility.await().atMost(WITHIN).until(() -> assignedTo(context) == 3 && held(context).size() == 3);
			downstream.up.set(true);
			Awaitility.await().atMost(WITHIN).until(() -> downstream.processed.size() == 6);
			assertThat(downstream.recovered).isEmpty();
		});
	}

	@Test
	void aPolicyWithABudgetAndASingleAttemptStopsStartUpInOutageMode() {
		on("outage-three", "backoff.policies.down.max-attempts=1").run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.isInstanceOfSatisfying(BackoffConfigurationException.class, (ex) -> {
				assertThat(ex.getProperty()).isEqualTo("@Backoff on RecordListener.onRecord (policy down)");
				assertThat(ex.getValue()).isEqualTo(1);
				assertThat(ex.getMessage()).contains("must be at least 2 for listener 'down' in outage mode");
			}));
	}

	@Test
	void aBadOutageSettingStopsStartUpNamingIt() {
		on("outage-three", "backoff.kafka.outage-probe-delay=0s").run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.isInstanceOfSatisfying(BackoffConfigurationException.class, (ex) -> {
				assertThat(ex.getProperty()).isEqualTo("backoff.kafka.outage-probe-delay");
				assertThat(ex.getMessage()).contains("must be at least 1ms");
			}));
		on("outage-three", "backoff.kafka.outage-max-pause=50ms").run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.isInstanceOfSatisfying(BackoffConfigurationException.class,
					(ex) -> assertThat(ex.getProperty()).isEqualTo("backoff.kafka.outage-max-pause")));
		on("outage-three", "backoff.kafka.outage=pauze").run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("backoff.kafka.outage", "pauze",
					"must be one of pause, dead-letter");
		});
		on("outage-three", "backoff.kafka.outage-probe-dealy=100ms").run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.isInstanceOfSatisfying(BackoffConfigurationException.class, (ex) -> assertThat(ex.getAction())
				.startsWith("Did you mean backoff.kafka.outage-probe-delay? ")));
	}

	private static MessageListenerContainer assigned(AssertableApplicationContext context, int partitions) {
		Awaitility.await().atMost(WITHIN).until(() -> assignedTo(context) == partitions);
		return context.getBean(KafkaListenerEndpointRegistry.class).getAllListenerContainers().iterator().next();
	}

	private static int assignedTo(AssertableApplicationContext context) {
		MessageListenerContainer container = context.getBean(KafkaListenerEndpointRegistry.class)
			.getAllListenerContainers()
			.iterator()
			.next();
		return (container.getAssignedPartitions() != null) ? container.getAssignedPartitions().size() : 0;
	}

	private static void send(AssertableApplicationContext context, String topic, int records) {
		KafkaTemplate<Object, Object> template = context.getBean(KafkaTemplate.class);
		for (int i = 0; i < records; i++) {
			template.send(topic, i % 3, null, topic + "-" + i);
		}
		template.flush();
	}

	private static ListenerOutage outage(AssertableApplicationContext context) {
		return context.getBean(KafkaOutages.class).listeners().get(0);
	}

	private static Set<TopicPartition> held(AssertableApplicationContext context) {
		return outage(context).pausedPartitions();
	}

	private static List<TopicPartition> partitions(String topic) {
		return List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1), new TopicPartition(topic, 2));
	}

	private static Set<String> union(Set<String> one, Set<String> two) {
		Set<String> union = ConcurrentHashMap.newKeySet();
		union.addAll(one);
		union.addAll(two);
		return union;
	}

	private static double count(MeterRegistry meters, String outcome) {
		Counter counter = meters.find("backoff.calls").tag("method", "down").tag("outcome", outcome).counter();
		return (counter != null) ? counter.count() : 0;
	}

	private static Recorded record(AssertableApplicationContext context) {
		Recorded recorded = new Recorded();
		context.getBean(KafkaOutages.class).addListener(recorded);
		return recorded;
	}

	/** What the outage told its listeners. */
	static class Recorded implements KafkaOutageListener {

		final Set<TopicPartition> paused = ConcurrentHashMap.newKeySet();

		final Set<TopicPartition> resumed = ConcurrentHashMap.newKeySet();

		final List<Boolean> probes = new CopyOnWriteArrayList<>();

		final AtomicInteger heldBack = new AtomicInteger();

		@Override
		public void paused(String listenerId, String policy, TopicPartition partition) {
			this.paused.add(partition);
		}

		@Override
		public void resumed(String listenerId, String policy, TopicPartition partition, Duration paused) {
			this.resumed.add(partition);
		}

		@Override
		public void probed(String listenerId, String policy, boolean succeeded) {
			this.probes.add(succeeded);
		}

		@Override
		public void heldBack(String listenerId, String policy, ConsumerRecord<?, ?> record) {
			this.heldBack.incrementAndGet();
		}

		long probes(boolean succeeded) {
			return this.probes.stream().filter((probe) -> probe == succeeded).count();
		}

	}

	/** The downstream a listener calls: down until a test brings it up; a poison value always fails. */
	static class Downstream {

		final AtomicBoolean up = new AtomicBoolean();

		final AtomicInteger calls = new AtomicInteger();

		final Set<String> processed = ConcurrentHashMap.newKeySet();

		final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();

		final List<String> recovered = new CopyOnWriteArrayList<>();

		final List<TopicPartition> revoked = new CopyOnWriteArrayList<>();

		volatile String poison = "";

		void call(String value) {
			this.calls.incrementAndGet();
			this.deliveries.computeIfAbsent(value, (key) -> new AtomicInteger()).incrementAndGet();
			if (!this.up.get() || value.equals(this.poison)) {
				throw new IllegalStateException("downstream unavailable");
			}
			this.processed.add(value);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class DownstreamConfiguration {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		Downstream downstream() {
			return new Downstream();
		}

		@Bean
		ConsumerRecordRecoverer recoverer(Downstream downstream) {
			return (record, failure) -> downstream.recovered.add(String.valueOf(record.value()));
		}

		@Bean
		ConsumerAwareRebalanceListener revocations(Downstream downstream) {
			return new ConsumerAwareRebalanceListener() {

				@Override
				public void onPartitionsRevokedBeforeCommit(Consumer<?, ?> consumer,
						java.util.Collection<TopicPartition> partitions) {
					downstream.revoked.addAll(partitions);
				}

			};
		}

	}

	static class RecordListener {

		private final Downstream downstream;

		RecordListener(Downstream downstream) {
			this.downstream = downstream;
		}

		@KafkaListener(id = "down", topics = "${test.topic}", groupId = "${test.topic}")
		@Backoff("down")
		public void onRecord(String value) {
			this.downstream.call(value);
		}

	}

	static class BatchListener {

		private final Downstream downstream;

		BatchListener(Downstream downstream) {
			this.downstream = downstream;
		}

		/** Names the record that failed, as Spring Kafka asks of a batch listener. */
		@KafkaListener(id = "down", topics = "outage-batch", groupId = "outage-batch", batch = "true")
		@Backoff("down")
		public void onRecords(List<String> values) {
			List<String> done = new ArrayList<>();
			for (String value : values) {
				try {
					this.downstream.call(value);
					done.add(value);
				}
				catch (RuntimeException ex) {
					throw new BatchListenerFailedException("downstream unavailable", ex, done.size());
				}
			}
		}

	}

}
