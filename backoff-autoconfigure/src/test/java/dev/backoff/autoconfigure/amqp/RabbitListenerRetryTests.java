package dev.backoff.autoconfigure.amqp;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.BackoffListener;
import dev.backoff.Outcome;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import dev.backoff.spring.retry.BackoffRetries;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.retry.MessageRecoverer;
import org.springframework.amqp.rabbit.support.ListenerExecutionFailedException;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.amqp.autoconfigure.RabbitListenerRetrySettingsCustomizer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Spring AMQP's listener retry, as Spring Boot builds it for the listener container factory,
 * on a named policy through a {@code RabbitListenerRetrySettingsCustomizer}, as
 * docs/messaging.md shows it. The retry interceptor Boot puts in the container's advice chain
 * is run as the container runs it, on one consumer thread, without a broker: the policy's waits
 * and outcomes are read from a {@code BackoffListener} and the meters, never the clock.
 */
class RabbitListenerRetryTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class,
				RabbitAutoConfiguration.class))
		.withUserConfiguration(PaymentsRetryConfiguration.class)
		.withPropertyValues("spring.rabbitmq.listener.simple.retry.enabled=true",
				"backoff.policies.payments.max-attempts=4", "backoff.policies.payments.base-delay=0ms");

	@Test
	void theListenerIsCalledMaxAttemptsTimesThenRejected() {
		this.runner.run((context) -> {
			AtomicInteger calls = new AtomicInteger();
			assertThatExceptionOfType(ListenerExecutionFailedException.class)
				.isThrownBy(() -> retryInterceptor(context).invoke(new Delivery("order-1", Integer.MAX_VALUE, calls)))
				.withMessage("Retry Policy Exhausted")
				.withCauseInstanceOf(AmqpRejectAndDontRequeueException.class);
			assertThat(calls).hasValue(4);
			assertThat(count(context, "backoff.retries", null)).isEqualTo(3);
			assertThat(count(context, "backoff.calls", "exhausted")).isEqualTo(1);
		});
	}

	@Test
	void aListenerThatFailsTwiceIsCalledThreeTimesEachWaitWithinItsCeiling() {
		// Full jitter from 1ms: the waits are at most 1ms and 2ms, and differ from run to run.
		this.runner.withPropertyValues("backoff.policies.payments.base-delay=1ms", "backoff.policies.payments.jitter=full")
			.withBean(Recorder.class)
			.run((context) -> {
				AtomicInteger calls = new AtomicInteger();
				MethodInterceptor retry = retryInterceptor(context);
				assertThat(retry.invoke(new Delivery("order-1", 2, calls))).isEqualTo("paid order-1");
				assertThat(calls).hasValue(3);
				Recorder recorder = context.getBean(Recorder.class);
				assertThat(recorder.events).containsExactly("retry 1", "retry 2");
				assertThat(recorder.waits).hasSize(2);
				assertThat(recorder.waits.get(0)).isBetween(Duration.ZERO, Duration.ofMillis(1));
				assertThat(recorder.waits.get(1)).isBetween(Duration.ZERO, Duration.ofMillis(2));
				// The interceptor has no place for the policy's listener: the success is counted when
				// the consumer thread starts its next retry cycle.
				assertThat(retry.invoke(new Delivery("order-2", 1, new AtomicInteger()))).isEqualTo("paid order-2");
				assertThat(recorder.events).containsExactly("retry 1", "retry 2", "success success_after_retry after 3",
						"retry 1");
				assertThat(count(context, "backoff.calls", "success_after_retry")).isEqualTo(1);
			});
	}

	@Test
	void aListenerThatNeverSucceedsReachesTheApplicationsRecovererAfterMaxAttempts() {
		this.runner.withBean(Recorder.class).run((context) -> {
			AtomicInteger calls = new AtomicInteger();
			// Boot's configurer hands the exhausted message to the application's MessageRecoverer.
			assertThat(retryInterceptor(context).invoke(new Delivery("order-1", Integer.MAX_VALUE, calls))).isNull();
			Recorder recorder = context.getBean(Recorder.class);
			assertThat(recorder.recovered).containsExactly("order-1 after 4: payment service unavailable");
			assertThat(recorder.events).containsExactly("retry 1", "retry 2", "retry 3", "failure exhausted after 4");
			assertThat(count(context, "backoff.calls", "exhausted")).isEqualTo(1);
		});
	}

	@Test
	void anEmptiedBudgetSendsTheMessagesToTheRecovererWithoutRetries() {
		// Four tokens: a retry while more than half of them is left, a failure takes one.
		this.runner.withPropertyValues("backoff.policies.payments.budget.max-tokens=4")
			.withBean(Recorder.class)
			.run((context) -> {
				MethodInterceptor retry = retryInterceptor(context);
				List<Integer> calls = new ArrayList<>();
				for (String order : List.of("order-1", "order-2", "order-3")) {
					AtomicInteger count = new AtomicInteger();
					retry.invoke(new Delivery(order, Integer.MAX_VALUE, count));
					calls.add(count.get());
				}
				Recorder recorder = context.getBean(Recorder.class);
				assertThat(calls).containsExactly(2, 1, 1);
				assertThat(recorder.recovered).containsExactly("order-1 after 2: payment service unavailable",
						"order-2 after 1: payment service unavailable", "order-3 after 1: payment service unavailable");
				assertThat(count(context, "backoff.calls", "budget_exhausted")).isEqualTo(3);
				assertThat(count(context, "backoff.retries", null)).isEqualTo(1);
			});
	}

	@Test
	void withStatefulRetryEachMessageKeepsItsOwnCycleAcrossItsRedeliveries() {
		// Stateful retry keeps a cycle per message id and rethrows, so that the broker redelivers:
		// the cycles of two messages interleave on the consumer thread.
		this.runner.withPropertyValues("spring.rabbitmq.listener.simple.retry.stateless=false")
			.withBean(Recorder.class)
			.run((context) -> {
				MethodInterceptor retry = retryInterceptor(context);
				Delivery first = new Delivery("order-1", 1, new AtomicInteger());
				first.message().getMessageProperties().setMessageId("1");
				Delivery second = new Delivery("order-2", 1, new AtomicInteger());
				second.message().getMessageProperties().setMessageId("2");
				List<String> results = new ArrayList<>();
				for (Delivery delivery : List.of(first, second, first, second)) {
					try {
						results.add(String.valueOf(retry.invoke(delivery)));
					}
					catch (Throwable ex) {
						results.add(ex.getClass().getSimpleName());
					}
				}
				Recorder recorder = context.getBean(Recorder.class);
				assertThat(results).containsExactly("ListenerExecutionFailedException",
						"ListenerExecutionFailedException", "paid order-1", "paid order-2");
				assertThat(recorder.recovered).isEmpty();
				assertThat(recorder.events).containsExactly("retry 1", "retry 1");
			});
	}

	private static MethodInterceptor retryInterceptor(AssertableApplicationContext context) {
		Advice[] chain = context.getBean("rabbitListenerContainerFactory", SimpleRabbitListenerContainerFactory.class)
			.getAdviceChain();
		assertThat(chain).hasSize(1);
		return (MethodInterceptor) chain[0];
	}

	private static double count(AssertableApplicationContext context, String meter, @Nullable String outcome) {
		MeterRegistry meters = context.getBean(MeterRegistry.class);
		return (outcome != null)
				? meters.get(meter).tag("method", "payments-queue").tag("outcome", outcome).counter().count()
				: meters.get(meter).tag("method", "payments-queue").counter().count();
	}

	@Configuration(proxyBeanMethods = false)
	static class PaymentsRetryConfiguration {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		// As docs/messaging.md shows it.
		@Bean
		RabbitListenerRetrySettingsCustomizer paymentsRetries(BackoffRetries retries) {
			return (settings) -> settings.setFactory((builder) -> retries.retryPolicy("payments", "payments-queue"));
		}

	}

	/** The policy's events and waits, and the messages the application's recoverer got. */
	static class Recorder implements BackoffListener, MessageRecoverer {

		final List<String> events = new ArrayList<>();

		final List<Duration> waits = new ArrayList<>();

		final List<String> recovered = new ArrayList<>();

		@Override
		public void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
			this.events.add("retry " + attempt);
			this.waits.add(delay);
		}

		@Override
		public void onSuccess(Outcome outcome, int attempts) {
			this.events.add("success " + outcome.tagValue() + " after " + attempts);
		}

		@Override
		public void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
			this.events.add("failure " + outcome.tagValue() + " after " + attempts);
		}

		@Override
		public void recover(Message message, Throwable cause) {
			this.recovered.add(new String(message.getBody()) + " after " + Delivery.calls(message) + ": "
					+ cause.getCause().getMessage());
		}

	}

	/**
	 * One delivery of a message to a listener that fails its first calls, as the container
	 * invokes it: the channel and the message.
	 */
	private record Delivery(String order, int failures, AtomicInteger calls, Message message)
			implements MethodInvocation {

		private static final String CALLS = "test-calls";

		Delivery(String order, int failures, AtomicInteger calls) {
			this(order, failures, calls, new Message(order.getBytes(), new MessageProperties()));
			this.message.getMessageProperties().setHeader(CALLS, calls);
		}

		/** @return how many times the listener has been called with the message so far */
		static int calls(Message message) {
			return ((AtomicInteger) message.getMessageProperties().getHeaders().get(CALLS)).get();
		}

		@Override
		public Method getMethod() {
			return ReflectionMethods.LISTENER;
		}

		@Override
		public Object[] getArguments() {
			return new Object[] { null, this.message };
		}

		@Override
		public @Nullable Object proceed() {
			if (this.calls.incrementAndGet() <= this.failures) {
				throw new ListenerExecutionFailedException("Listener threw exception",
						new IllegalStateException("payment service unavailable"), this.message);
			}
			return "paid " + this.order;
		}

		@Override
		public @Nullable Object getThis() {
			return null;
		}

		@Override
		public AccessibleObject getStaticPart() {
			return getMethod();
		}

	}

	private static final class ReflectionMethods {

		static final Method LISTENER = Object.class.getMethods()[0];

	}

}
