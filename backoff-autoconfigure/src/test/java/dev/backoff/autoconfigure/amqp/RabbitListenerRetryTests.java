package dev.backoff.autoconfigure.amqp;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicInteger;

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
import org.springframework.amqp.rabbit.support.ListenerExecutionFailedException;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.amqp.autoconfigure.RabbitListenerRetrySettingsCustomizer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Spring AMQP's listener retry, as Spring Boot builds it for the listener container factory,
 * on a named policy through a {@code RabbitListenerRetrySettingsCustomizer}, as
 * docs/messaging.md shows it. The retry interceptor is run as the container runs it, without a
 * broker: a listener that never succeeds is called {@code max-attempts} times, then rejected.
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
			Advice[] chain = context.getBean("rabbitListenerContainerFactory", SimpleRabbitListenerContainerFactory.class)
				.getAdviceChain();
			assertThat(chain).hasSize(1);
			AtomicInteger calls = new AtomicInteger();
			assertThatExceptionOfType(ListenerExecutionFailedException.class)
				.isThrownBy(() -> ((MethodInterceptor) chain[0]).invoke(new Delivery(calls)))
				.withMessage("Retry Policy Exhausted")
				.withCauseInstanceOf(AmqpRejectAndDontRequeueException.class);
			assertThat(calls).hasValue(4);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("backoff.retries").tag("method", "payments-queue").counter().count()).isEqualTo(3);
			assertThat(meters.get("backoff.calls").tag("method", "payments-queue").tag("outcome", "exhausted")
				.counter()
				.count()).isEqualTo(1);
		});
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

	/** One delivery of a message to a listener that always fails, as the container invokes it. */
	private record Delivery(AtomicInteger calls) implements MethodInvocation {

		@Override
		public Method getMethod() {
			return ReflectionMethods.LISTENER;
		}

		@Override
		public Object[] getArguments() {
			return new Object[] { null, new Message("order-1".getBytes(), new MessageProperties()) };
		}

		@Override
		public @Nullable Object proceed() {
			this.calls.incrementAndGet();
			throw new IllegalStateException("payment service unavailable");
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
