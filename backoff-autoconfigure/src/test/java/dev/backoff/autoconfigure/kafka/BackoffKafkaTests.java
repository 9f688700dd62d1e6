package dev.backoff.autoconfigure.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffPolicy;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.actuate.BackoffEndpoint;
import dev.backoff.autoconfigure.actuate.BackoffEndpointAutoConfiguration;
import dev.backoff.autoconfigure.actuate.ListenerStates;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.BackoffSettings;
import dev.backoff.spring.config.PolicySettings;
import dev.backoff.spring.kafka.KafkaListenerPolicies;
import dev.backoff.spring.operation.BackoffOperation;
import dev.backoff.spring.operation.BackoffOperationSource;
import dev.backoff.spring.retry.BackoffRetries;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Kafka listeners retried by named policies, on a real in-JVM broker (KRaft): the container
 * redelivers a failed record by the policy's waits until the policy stops, then the
 * application's recoverer publishes it to the dead-letter topic; the retries are reported under
 * the listener's id like a method's, and follow a live change of the policy; no in-process retry
 * wraps the listener. One broker for the
 * JVM ({@link KafkaTestBroker}): it takes seconds to start.
 */
@ExtendWith(OutputCaptureExtension.class)
class BackoffKafkaTests {

	private static EmbeddedKafkaKraftBroker broker;

	/** The auto-configurations, the policies and a dead-letter recoverer; each test adds its listeners. */
	private final ApplicationContextRunner base = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class,
				BackoffEndpointAutoConfiguration.class, KafkaAutoConfiguration.class, BackoffKafkaAutoConfiguration.class))
		.withUserConfiguration(ListenersConfiguration.class)
		.withPropertyValues("spring.kafka.consumer.auto-offset-reset=earliest",
				"management.endpoints.web.exposure.include=backoff",
				"backoff.policies.orders.max-attempts=4", "backoff.policies.orders.base-delay=10ms",
				"backoff.policies.orders.max-delay=40ms", "backoff.policies.tight.max-attempts=4",
				"backoff.policies.tight.base-delay=10ms", "backoff.policies.tight.budget.max-tokens=4");

	private final ApplicationContextRunner runner = this.base.withBean(Listeners.class)
		.withPropertyValues("backoff.kafka.listeners.never=orders", "backoff.kafka.listeners.outage=tight");

	@BeforeAll
	static void startBroker() {
		broker = KafkaTestBroker.get("flaky", "never", "never-dlt", "outage", "outage-dlt", "annotated",
				"annotated-dlt", "unnamed", "unnamed-dlt", "spel", "spel-dlt", "placeholder", "placeholder-dlt",
				"restart");
	}

	@Test
	void failedRecordsFollowTheirListenersPolicyThenGoToTheDeadLetterTopic() {
		// backoff.kafka.outage=dead-letter: a budget that refuses a retry sends the record to the recoverer, as
		// before outage mode (BackoffKafkaOutageTests).
		this.runner
			.withPropertyValues("spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(),
					"backoff.kafka.outage=dead-letter")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Listeners listeners = context.getBean(Listeners.class);
				KafkaTemplate<Object, Object> template = context.getBean(KafkaTemplate.class);
				template.send("flaky", "order-1");
				template.send("never", "order-2");
				template.send("outage", "order-3");
				assertThat(listeners.done.await(30, TimeUnit.SECONDS)).as("all three records handled").isTrue();
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				// @Backoff on the listener: fails twice, then succeeds at the third delivery.
				assertThat(listeners.flaky).hasValue(3);
				assertThat(count(meters, "backoff.calls", "flaky", "success_after_retry")).isEqualTo(1);
				assertThat(meters.get("backoff.retries").tag("method", "flaky").counter().count()).isEqualTo(2);
				// Each wait within its ceiling: 10ms, then 20ms.
				assertThat(meters.get("backoff.delay").tag("method", "flaky").timer().max(TimeUnit.MILLISECONDS))
					.isLessThanOrEqualTo(20);
				// backoff.kafka.listeners: exactly max-attempts deliveries, then the dead-letter topic.
				assertThat(listeners.never).hasValue(4);
				assertThat(listeners.deadLetters).contains("never:order-2");
				assertThat(count(meters, "backoff.calls", "never", "exhausted")).isEqualTo(1);
				// A budget of four tokens: a retry needs more than two left after the failure takes one, so the
				// first retry (3 left) is made and the second (2 left) refused: two deliveries.
				assertThat(listeners.outage).hasValue(2);
				assertThat(listeners.deadLetters).contains("outage:order-3");
				assertThat(count(meters, "backoff.calls", "outage", "budget_exhausted")).isEqualTo(1);
				// The container redelivers: nothing retries around the listener in-process.
				assertThat(AopUtils.isAopProxy(listeners)).isFalse();
				assertThat(context.getBean(BackoffOperationSource.class).getAll()).extracting(BackoffOperation::getMethodTag)
					.contains("flaky", "never", "outage");
				// Listed by the endpoint under their policies, with their calls by outcome, like methods.
				Map<String, BackoffEndpoint.PolicyDescriptor> listed = context.getBean(BackoffEndpoint.class)
					.policies()
					.policies();
				assertThat(listed.get("orders").methods()).containsKeys("flaky", "never");
				assertThat(listed.get("orders").methods().get("never").calls()).containsEntry("exhausted", 1L);
				assertThat(listed.get("tight").methods()).containsKeys("outage");
				// And the listeners under a policy, none in an outage (backoff.kafka.outage=dead-letter).
				assertThat(context.getBean(BackoffEndpoint.class).policies().listeners()).containsOnlyKeys("flaky",
						"never", "outage")
					.containsEntry("outage", new ListenerStates.ListenerDescriptor("tight", List.of(), null));
				// A live change of the policy applies to the records that fail after it.
				context.getBean(BackoffOperationSource.class).change("orders", Map.of("maxAttempts", "2"));
				template.send("never", "order-4");
				Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> listeners.deadLetters.contains("never:order-4"));
				assertThat(listeners.never).hasValue(6);
				assertThat(count(meters, "backoff.calls", "never", "exhausted")).isEqualTo(2);
			});
	}

	@Test
	void aListenerIdThatNoListenerHasStopsStartUp() {
		this.runner
			.withPropertyValues("spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(),
					"backoff.kafka.listeners.nevr=orders")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("backoff.kafka.listeners.nevr")
				.hasMessageContaining("must name a @KafkaListener by its id")
				.hasMessageContaining("Did you mean 'never'? Use the listener's id"));
	}

	@Test
	void aRetryableTopicListenerIsLeftToItsRetryTopicsWithAWarningNamingIt(CapturedOutput output) {
		DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
		beans.registerBeanDefinition("topics", new RootBeanDefinition(RetryTopicListener.class));
		KafkaListenerPolicies policies = new KafkaListenerPolicies(KafkaListenerEndpointRegistry::new,
				retries(), Map.of(), null,
				new StandardEnvironment()::resolvePlaceholders, beans);
		policies.start();
		assertThat(output).contains("@Backoff(\"orders\") on RetryTopicListener.onOrder is left aside: the listener is "
				+ "a @RetryableTopic");
	}

	@Test
	void backoffBesideAKafkaListenerWithoutAnIdStopsStartUpNamingTheMethod() {
		DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
		beans.registerBeanDefinition("anonymous", new RootBeanDefinition(AnonymousListener.class));
		KafkaListenerPolicies policies = new KafkaListenerPolicies(KafkaListenerEndpointRegistry::new,
				retries(), Map.of(), null,
				new StandardEnvironment()::resolvePlaceholders, beans);
		assertThatExceptionOfType(BackoffConfigurationException.class).isThrownBy(policies::start)
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("@KafkaListener(id) on AnonymousListener.onOrder"));
	}

	@Test
	void backoffAttributesOnAListenerOverrideItsPolicyAndIdsMayBeExpressions() {
		this.base.withBean(AttributeListeners.class)
			.withPropertyValues("spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(),
					"backoff.defaults.max-attempts=2", "backoff.defaults.base-delay=1ms",
					"listeners.placeholder-id=placeholderOrders", "listeners.placeholder-policy=orders")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				AttributeListeners listeners = context.getBean(AttributeListeners.class);
				KafkaTemplate<Object, Object> template = context.getBean(KafkaTemplate.class);
				for (String topic : List.of("annotated", "unnamed", "spel", "placeholder")) {
					template.send(topic, "order");
				}
				assertThat(listeners.done.await(30, TimeUnit.SECONDS)).as("four records dead-lettered: %s",
						listeners.deadLetters).isTrue();
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				// @Backoff(value = "orders", maxAttempts = "2"): two deliveries, not the policy's four.
				assertThat(listeners.annotated).hasValue(2);
				assertThat(count(meters, "backoff.calls", "annotated", "exhausted")).isEqualTo(1);
				// @Backoff(maxAttempts = "3") without a name: the defaults (two attempts here) under the attribute.
				assertThat(listeners.unnamed).hasValue(3);
				assertThat(count(meters, "backoff.calls", "unnamed", "exhausted")).isEqualTo(1);
				// Ids and the policy name as bean expressions and placeholders: the policy's four deliveries, then
				// the application's recoverer, reported under the id Spring Kafka resolved.
				assertThat(listeners.spel).hasValue(4);
				assertThat(count(meters, "backoff.calls", "spelOrders", "exhausted")).isEqualTo(1);
				assertThat(listeners.placeholder).hasValue(4);
				assertThat(count(meters, "backoff.calls", "placeholderOrders", "exhausted")).isEqualTo(1);
				assertThat(listeners.deadLetters).containsExactlyInAnyOrder("annotated:order", "unnamed:order",
						"spel:order", "placeholder:order");
				Map<String, BackoffEndpoint.PolicyDescriptor> listed = context.getBean(BackoffEndpoint.class)
					.policies()
					.policies();
				assertThat(listed.get("orders").methods()).containsKeys("annotated", "spelOrders", "placeholderOrders");
				assertThat(listed.get(BackoffPolicies.DEFAULTS).methods()).containsKeys("unnamed");
			});
	}

	@Test
	void aRestartedContextCountsEachRecordOnce() {
		this.base.withBean(RestartListener.class)
			.withPropertyValues("spring.kafka.bootstrap-servers=" + broker.getBrokersAsString())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				context.stop();
				context.start();
				context.getBean(KafkaTemplate.class).send("restart", "order");
				assertThat(context.getBean(RestartListener.class).done.await(30, TimeUnit.SECONDS)).isTrue();
				// Stopping waits for the consumer, whose interceptors have then seen the record.
				context.stop();
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(count(meters, "backoff.calls", "restart", "success")).isEqualTo(1);
			});
	}

	@Test
	void anAnnotatedListenerThatTheRegistryLacksStopsStartUpNamingIt() {
		DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
		beans.registerBeanDefinition("lonely", new RootBeanDefinition(LonelyListener.class));
		KafkaListenerPolicies policies = new KafkaListenerPolicies(KafkaListenerEndpointRegistry::new, retries(),
				Map.of(), null, new StandardEnvironment()::resolvePlaceholders, beans);
		assertThatExceptionOfType(BackoffConfigurationException.class).isThrownBy(policies::start)
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("@KafkaListener(id) on LonelyListener.onOrder"))
			.withMessageContaining("lonely-orders")
			.withMessageContaining("must name a listener container of the registry");
	}

	@Test
	void aListenersBackoffNamingAMistypedPolicyNamesTheNearest() {
		DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
		beans.registerBeanDefinition("mistyped", new RootBeanDefinition(MistypedPolicyListener.class));
		BackoffSettings settings = new BackoffSettings();
		PolicySettings orders = new PolicySettings();
		orders.setMaxAttempts(2);
		settings.getPolicies().put("orders", orders);
		KafkaListenerPolicies policies = new KafkaListenerPolicies(KafkaListenerEndpointRegistry::new,
				retries(settings), Map.of(), null, new StandardEnvironment()::resolvePlaceholders, beans);
		assertThatExceptionOfType(BackoffConfigurationException.class).isThrownBy(policies::start)
			.satisfies((ex) -> assertThat(ex.getProperty())
				.isEqualTo("@Backoff(value) on MistypedPolicyListener.onOrder (listener mistyped-orders)"))
			.satisfies((ex) -> assertThat(ex.getAction()).startsWith("Did you mean 'orders'? "));
	}

	@Test
	void aFallbackOnAListenerStopsStartUpNamingTheListenerAndTheAttribute() {
		DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
		beans.registerBeanDefinition("fallback", new RootBeanDefinition(FallbackListener.class));
		KafkaListenerPolicies policies = new KafkaListenerPolicies(KafkaListenerEndpointRegistry::new, retries(),
				Map.of(), null, new StandardEnvironment()::resolvePlaceholders, beans);
		assertThatExceptionOfType(BackoffConfigurationException.class).isThrownBy(policies::start)
			.satisfies((ex) -> assertThat(ex.getProperty())
				.isEqualTo("@Backoff(fallback) on FallbackListener.onOrder (listener fallback-orders)"));
	}

	@Test
	void anAttemptTimeoutOrHedgesOnAListenerStopStartUpNamingTheListenerAndTheAttribute() {
		for (Class<?> type : List.of(TimeoutListener.class, HedgedListener.class)) {
			DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
			beans.registerBeanDefinition("listener", new RootBeanDefinition(type));
			KafkaListenerPolicies policies = new KafkaListenerPolicies(KafkaListenerEndpointRegistry::new, retries(),
					Map.of(), null, new StandardEnvironment()::resolvePlaceholders, beans);
			String attribute = (type == TimeoutListener.class) ? "attemptTimeout" : "maxHedges";
			assertThatExceptionOfType(BackoffConfigurationException.class).isThrownBy(policies::start)
				.satisfies((ex) -> assertThat(ex.getProperty())
					.isEqualTo("@Backoff(" + attribute + ") on " + type.getSimpleName() + ".onOrder (listener orders)"));
		}
	}

	@Test
	void aListenersKeyForAnAnnotatedListenerStopsStartUp() {
		DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
		beans.registerBeanDefinition("lonely", new RootBeanDefinition(LonelyListener.class));
		KafkaListenerPolicies policies = new KafkaListenerPolicies(KafkaListenerEndpointRegistry::new, retries(),
				Map.of("lonely-orders", BackoffPolicies.DEFAULTS), null, new StandardEnvironment()::resolvePlaceholders,
				beans);
		assertThatExceptionOfType(BackoffConfigurationException.class).isThrownBy(policies::start)
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("backoff.kafka.listeners.lonely-orders"))
			.withMessageContaining("@Backoff on LonelyListener.onOrder gives a policy already");
	}

	/** Real retries over the defaults only: these listeners start no container. */
	private static BackoffRetries retries() {
		return retries(new BackoffSettings());
	}

	private static BackoffRetries retries(BackoffSettings settings) {
		return new BackoffRetries(BackoffOperationSource.create(
				BackoffPolicies.of(settings, null, BackoffPolicy.defaults(), null),
				BackoffExecutor.builder().build(), new ScheduledThreadPoolExecutor(1), List.of(), List.of(),
				(value) -> value, null));
	}

	static class LonelyListener {

		@KafkaListener(id = "lonely-orders", topics = "orders")
		@Backoff
		void onOrder(String order) {
		}

	}

	static class MistypedPolicyListener {

		@KafkaListener(id = "mistyped-orders", topics = "orders")
		@Backoff("ordrs")
		void onOrder(String order) {
		}

	}

	static class FallbackListener {

		@KafkaListener(id = "fallback-orders", topics = "orders")
		@Backoff(fallback = "onOrderFailed")
		void onOrder(String order) {
		}

		void onOrderFailed(String order, Exception failure) {
		}

	}

	static class TimeoutListener {

		@KafkaListener(id = "orders", topics = "orders")
		@Backoff(attemptTimeout = "1s")
		void onOrder(String order) {
		}

	}

	static class HedgedListener {

		@KafkaListener(id = "orders", topics = "orders")
		@Backoff(maxHedges = "1", hedgeDelay = "50ms")
		void onOrder(String order) {
		}

	}

	static class RestartListener {

		final CountDownLatch done = new CountDownLatch(1);

		@KafkaListener(id = "restart", topics = "restart", groupId = "restart")
		@Backoff("orders")
		public void onOrder(String order) {
			this.done.countDown();
		}

	}

	static class AttributeListeners {

		final AtomicInteger annotated = new AtomicInteger();

		final AtomicInteger unnamed = new AtomicInteger();

		final AtomicInteger spel = new AtomicInteger();

		final AtomicInteger placeholder = new AtomicInteger();

		final List<String> deadLetters = new CopyOnWriteArrayList<>();

		final CountDownLatch done = new CountDownLatch(4);

		@KafkaListener(id = "annotated", topics = "annotated", groupId = "annotated")
		@Backoff(value = "orders", maxAttempts = "2")
		public void annotated(String order) {
			this.annotated.incrementAndGet();
			throw new IllegalStateException("downstream unavailable");
		}

		@KafkaListener(id = "unnamed", topics = "unnamed", groupId = "unnamed")
		@Backoff(maxAttempts = "3")
		public void unnamed(String order) {
			this.unnamed.incrementAndGet();
			throw new IllegalStateException("downstream unavailable");
		}

		@KafkaListener(id = "#{'spel' + 'Orders'}", topics = "spel", groupId = "spel")
		@Backoff("#{'ord' + 'ers'}")
		public void spel(String order) {
			this.spel.incrementAndGet();
			throw new IllegalStateException("downstream unavailable");
		}

		@KafkaListener(id = "${listeners.placeholder-id}", topics = "placeholder", groupId = "placeholder")
		@Backoff("${listeners.placeholder-policy}")
		public void placeholder(String order) {
			this.placeholder.incrementAndGet();
			throw new IllegalStateException("downstream unavailable");
		}

		@KafkaListener(id = "attribute-dead-letters",
				topics = { "annotated-dlt", "unnamed-dlt", "spel-dlt", "placeholder-dlt" },
				groupId = "attribute-dead-letters")
		public void deadLetter(String order, org.apache.kafka.clients.consumer.ConsumerRecord<?, ?> record) {
			this.deadLetters.add(record.topic().replace("-dlt", "") + ":" + order);
			this.done.countDown();
		}

	}

	static class RetryTopicListener {

		@KafkaListener(id = "topics", topics = "orders")
		@RetryableTopic
		@Backoff("orders")
		void onOrder(String order) {
		}

	}

	static class AnonymousListener {

		@KafkaListener(topics = "orders")
		@Backoff("orders")
		void onOrder(String order) {
		}

	}

	private static double count(MeterRegistry meters, String name, String method, String outcome) {
		return meters.get(name).tag("method", method).tag("outcome", outcome).counter().count();
	}

	@Configuration(proxyBeanMethods = false)
	static class ListenersConfiguration {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		DeadLetterPublishingRecoverer recoverer(KafkaTemplate<Object, Object> template) {
			return new DeadLetterPublishingRecoverer(template);
		}

	}

	static class Listeners {

		final AtomicInteger flaky = new AtomicInteger();

		final AtomicInteger never = new AtomicInteger();

		final AtomicInteger outage = new AtomicInteger();

		final List<String> deadLetters = new CopyOnWriteArrayList<>();

		final CountDownLatch done = new CountDownLatch(3);

		@KafkaListener(id = "flaky", topics = "flaky", groupId = "flaky")
		@Backoff("orders")
		public void flaky(String order) {
			if (this.flaky.incrementAndGet() < 3) {
				throw new IllegalStateException("downstream unavailable");
			}
			this.done.countDown();
		}

		@KafkaListener(id = "never", topics = "never", groupId = "never")
		public void never(String order) {
			this.never.incrementAndGet();
			throw new IllegalStateException("downstream unavailable");
		}

		@KafkaListener(id = "outage", topics = "outage", groupId = "outage")
		public void outage(String order) {
			this.outage.incrementAndGet();
			throw new IllegalStateException("downstream unavailable");
		}

		@KafkaListener(id = "dead-letters", topics = { "never-dlt", "outage-dlt" }, groupId = "dead-letters")
		public void deadLetter(String order, org.apache.kafka.clients.consumer.ConsumerRecord<?, ?> record) {
			this.deadLetters.add(record.topic().replace("-dlt", "") + ":" + order);
			this.done.countDown();
		}

	}

}
