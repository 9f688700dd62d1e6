package dev.backoff.spring.retry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Jitter;
import dev.backoff.RandomSource;
import dev.backoff.spring.config.BackoffSettings;
import dev.backoff.spring.config.PolicySettings;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.integration.handler.AbstractReplyProducingMessageHandler;
import org.springframework.integration.handler.advice.RequestHandlerRetryAdvice;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessagingException;
import org.springframework.messaging.support.MessageBuilder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Spring Integration's {@code RequestHandlerRetryAdvice} on a named policy, as docs/messaging.md
 * shows it: the handler is called again by the policy's waits until it succeeds or the policy
 * stops, and each call's end is reported like a method's.
 */
class IntegrationRetryAdviceTests {

	private final EventLog log = new EventLog();

	private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

	@AfterEach
	void stopScheduler() {
		this.scheduler.shutdownNow();
	}

	@Test
	void aFailingHandlerIsCalledAgainUntilItSucceeds() {
		Payments payments = new Payments(2);
		handler(payments, retries(5)).handleMessage(MessageBuilder.withPayload("order-1").build());
		assertThat(payments.calls).hasValue(3);
		assertThat(this.log.events).containsExactly("retry 1 MessagingException", "retry 2 MessagingException",
				"success success_after_retry after 3");
	}

	@Test
	void aHandlerThatNeverSucceedsIsCalledMaxAttemptsTimes() {
		Payments payments = new Payments(Integer.MAX_VALUE);
		AbstractReplyProducingMessageHandler handler = handler(payments, retries(3));
		assertThatExceptionOfType(MessagingException.class)
			.isThrownBy(() -> handler.handleMessage(MessageBuilder.withPayload("order-2").build()));
		assertThat(payments.calls).hasValue(3);
		assertThat(this.log.events).containsExactly("retry 1 MessagingException", "retry 2 MessagingException",
				"failure exhausted after 3 MessagingException");
	}

	@Test
	void eachWaitIsWithinItsCeiling() {
		PolicySettings payments = policy(4);
		payments.setBaseDelay(Duration.ofMillis(1));
		payments.setJitter(Jitter.FULL);
		Payments service = new Payments(3);
		handler(service, retries(payments)).handleMessage(MessageBuilder.withPayload("order-1").build());
		assertThat(service.calls).hasValue(4);
		// Full jitter from 1ms, doubling: at most 1, 2 and 4ms.
		assertThat(this.log.waits).hasSize(3);
		assertThat(this.log.waits.get(0)).isBetween(Duration.ZERO, Duration.ofMillis(1));
		assertThat(this.log.waits.get(1)).isBetween(Duration.ZERO, Duration.ofMillis(2));
		assertThat(this.log.waits.get(2)).isBetween(Duration.ZERO, Duration.ofMillis(4));
	}

	@Test
	void anEmptiedBudgetStopsTheRetries() {
		// Four tokens: a retry while more than half of them is left, a failure takes one.
		PolicySettings payments = policy(10);
		payments.getBudget().setMaxTokens(4.0);
		Payments service = new Payments(Integer.MAX_VALUE);
		AbstractReplyProducingMessageHandler handler = handler(service, retries(payments));
		List<Integer> calls = new ArrayList<>();
		for (String order : List.of("order-1", "order-2", "order-3")) {
			int before = service.calls.get();
			assertThatExceptionOfType(MessagingException.class)
				.isThrownBy(() -> handler.handleMessage(MessageBuilder.withPayload(order).build()));
			calls.add(service.calls.get() - before);
		}
		assertThat(calls).containsExactly(2, 1, 1);
		assertThat(this.log.events).containsExactly("retry 1 MessagingException",
				"failure budget_exhausted after 2 MessagingException", "failure budget_exhausted after 1 MessagingException",
				"failure budget_exhausted after 1 MessagingException");
	}

	@Test
	void messagesThatSucceedAtOnceRefillTheBudgetAndAreCounted() {
		// Ten tokens, a tenth of one back per success, retries while more than five are left.
		PolicySettings payments = policy(3);
		payments.getBudget().setMaxTokens(10.0);
		Payments service = new Payments(Integer.MAX_VALUE);
		AbstractReplyProducingMessageHandler handler = handler(service, retries(payments));
		for (String order : List.of("order-1", "order-2")) {
			assertThatExceptionOfType(MessagingException.class)
				.isThrownBy(() -> handler.handleMessage(MessageBuilder.withPayload(order).build()));
		}
		// Five tokens are left: one more failure would not be retried.
		assertThat(this.log.events).endsWith("failure budget_exhausted after 2 MessagingException");
		service.failures = 0;
		for (int i = 0; i < 20; i++) {
			handler.handleMessage(MessageBuilder.withPayload("order-" + (i + 3)).build());
		}
		assertThat(this.log.events.stream().filter("success success after 1"::equals)).hasSize(20);
		// Twenty successes gave two tokens back: a failure now is retried.
		service.failures = service.calls.get() + 1;
		handler.handleMessage(MessageBuilder.withPayload("order-23").build());
		assertThat(this.log.events).endsWith("retry 1 MessagingException", "success success_after_retry after 2");
	}

	private static AbstractReplyProducingMessageHandler handler(Payments payments, BackoffRetries retries) {
		// As docs/messaging.md shows it.
		PolicyRetryPolicy policy = retries.retryPolicy("payments", "payments-handler");
		RequestHandlerRetryAdvice advice = new RequestHandlerRetryAdvice();
		advice.setRetryPolicy(policy);
		advice.setRetryListener(policy.listener());
		AbstractReplyProducingMessageHandler handler = new AbstractReplyProducingMessageHandler() {

			@Override
			protected @Nullable Object handleRequestMessage(Message<?> message) {
				payments.pay((String) message.getPayload());
				return null;
			}

		};
		handler.setRequiresReply(false);
		handler.setAdviceChain(List.of(advice));
		handler.setBeanFactory(new DefaultListableBeanFactory());
		handler.afterPropertiesSet();
		return handler;
	}

	private BackoffRetries retries(int maxAttempts) {
		return retries(policy(maxAttempts));
	}

	private static PolicySettings policy(int maxAttempts) {
		PolicySettings payments = new PolicySettings();
		payments.setMaxAttempts(maxAttempts);
		payments.setBaseDelay(Duration.ZERO);
		return payments;
	}

	private BackoffRetries retries(PolicySettings payments) {
		BackoffSettings settings = new BackoffSettings();
		settings.getPolicies().put("payments", payments);
		return new BackoffRetries(this.log.source(settings, RandomSource.THREAD_LOCAL, this.scheduler));
	}

	/** Fails its first calls, then pays. */
	public static class Payments {

		final AtomicInteger calls = new AtomicInteger();

		int failures;

		Payments(int failures) {
			this.failures = failures;
		}

		public void pay(String order) {
			if (this.calls.incrementAndGet() <= this.failures) {
				throw new IllegalStateException("payment service unavailable");
			}
		}

	}

}
