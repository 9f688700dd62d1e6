package dev.backoff.spring.retry;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.Jitter;
import dev.backoff.Outcome;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.BackoffSettings;
import dev.backoff.spring.config.PolicySettings;
import dev.backoff.spring.operation.BackoffOperationSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.util.backoff.BackOffExecution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Named policies as Spring's {@code BackOff} and Framework 7's {@code RetryPolicy}: the waits
 * of the policy, a cycle that stops by itself at the attempts or the budget, live changes for
 * the cycles that start after them, and the same events a method's call reports.
 */
class BackoffRetriesTests {

	private final EventLog log = new EventLog();

	private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

	@AfterEach
	void stopScheduler() {
		this.scheduler.shutdownNow();
	}

	@Test
	void aCycleDrawsThePolicysWaitsAndStopsAfterItsAttempts() {
		BackoffRetries retries = retries(policy(4, "100ms", Jitter.FULL), null);
		PolicyBackOff.Cycle cycle = retries.backOff("orders", "orders-listener").start();
		List<Long> waits = new ArrayList<>();
		for (long wait = cycle.nextBackOff(); wait != BackOffExecution.STOP; wait = cycle.nextBackOff()) {
			waits.add(wait);
		}
		// Three retries after four deliveries, each within its ceiling: 100, 200, 400 ms.
		assertThat(waits).hasSize(3);
		assertThat(waits.get(0)).isBetween(0L, 100L);
		assertThat(waits.get(1)).isBetween(0L, 200L);
		assertThat(waits.get(2)).isBetween(0L, 400L);
		assertThat(cycle.isEnded()).isTrue();
		assertThat(cycle.nextBackOff()).isEqualTo(BackOffExecution.STOP);
		assertThat(this.log.events).containsExactly("retry 1", "retry 2", "retry 3", "failure exhausted after 4");
	}

	@Test
	void aFailureTheCycleIsToldIsClassifiedByThePolicyAndNamedInItsEvents() {
		BackoffRetries retries = retries(policy(4, "0ms", Jitter.NONE), null);
		PolicyBackOff.Cycle cycle = retries.backOff("orders", "orders-listener").start();
		cycle.failed(new IllegalStateException("down"));
		assertThat(cycle.nextBackOff()).isZero();
		cycle.failed(new UnsupportedOperationException("never retried"));
		assertThat(cycle.nextBackOff()).isEqualTo(BackOffExecution.STOP);
		assertThat(this.log.events).containsExactly("retry 1 IllegalStateException",
				"failure not_retryable after 2 UnsupportedOperationException");
	}

	@Test
	void anEmptyBudgetStopsTheCycleSoTheRecordGoesToTheRecoverer() {
		PolicySettings orders = policy(10, "0ms", Jitter.NONE);
		orders.getBudget().setMaxTokens(4.0);
		BackoffRetries retries = retries(orders, null);
		PolicyBackOff backOff = retries.backOff("orders", "orders-listener");
		int delivered = 0;
		PolicyBackOff.Cycle cycle = backOff.start();
		while (cycle.nextBackOff() != BackOffExecution.STOP) {
			delivered++;
		}
		// Four tokens: a retry while more than half of them is left.
		assertThat(delivered).isEqualTo(1);
		assertThat(this.log.events).last().isEqualTo("failure budget_exhausted after 2");
		// Successes give tokens back, as a method's do.
		for (int i = 0; i < 20; i++) {
			backOff.succeededAtOnce();
		}
		assertThat(backOff.getOperation().getBudget().allowsRetries()).isTrue();
	}

	@Test
	void aLiveChangeAppliesToTheCyclesThatStartAfterIt() {
		BackoffOperationSource[] source = new BackoffOperationSource[1];
		BackoffRetries retries = retries(policy(2, "0ms", Jitter.NONE), source);
		PolicyBackOff backOff = retries.backOff("orders", "orders-listener");
		PolicyBackOff.Cycle before = backOff.start();
		source[0].change("orders", Map.of("maxAttempts", "4"));
		PolicyBackOff.Cycle after = backOff.start();
		assertThat(retriesOf(before)).isEqualTo(1);
		assertThat(retriesOf(after)).isEqualTo(3);
	}

	@Test
	void aRetryTemplateRetriesUntilTheCallSucceedsAndReportsTheEnd() throws RetryException {
		PolicyRetryPolicy policy = retries(policy(5, "0ms", Jitter.NONE), null).retryPolicy("orders", "payments");
		RetryTemplate template = new RetryTemplate(policy);
		template.setRetryListener(policy.listener());
		AtomicInteger calls = new AtomicInteger();
		String result = template.execute(() -> {
			if (calls.incrementAndGet() < 3) {
				throw new IllegalStateException("not yet");
			}
			return "paid";
		});
		assertThat(result).isEqualTo("paid");
		assertThat(calls).hasValue(3);
		assertThat(this.log.events).containsExactly("retry 1 IllegalStateException", "retry 2 IllegalStateException",
				"success success_after_retry after 3");
	}

	@Test
	void withoutItsListenerARetriedSuccessIsCountedWhenTheThreadStartsItsNextCycle() throws RetryException {
		PolicyRetryPolicy policy = retries(policy(5, "0ms", Jitter.NONE), null).retryPolicy("orders", "payments");
		RetryTemplate template = new RetryTemplate(policy);
		AtomicInteger calls = new AtomicInteger();
		for (int call = 0; call < 2; call++) {
			calls.set(0);
			template.execute(() -> {
				if (calls.incrementAndGet() < 2) {
					throw new IllegalStateException("not yet");
				}
				return "paid";
			});
		}
		assertThat(this.log.events).containsExactly("retry 1 IllegalStateException", "success success_after_retry after 2",
				"retry 1 IllegalStateException");
	}

	@Test
	void aRetryTemplateStopsAtAFailureThePolicyDoesNotRetry() {
		PolicyRetryPolicy policy = retries(policy(5, "0ms", Jitter.NONE), null).retryPolicy("orders", "payments");
		RetryTemplate template = new RetryTemplate(policy);
		template.setRetryListener(policy.listener());
		AtomicInteger calls = new AtomicInteger();
		assertThatExceptionOfType(RetryException.class).isThrownBy(() -> template.execute(() -> {
			calls.incrementAndGet();
			throw new UnsupportedOperationException("never retried");
		}));
		assertThat(calls).hasValue(1);
		assertThat(this.log.events).containsExactly("failure not_retryable after 1 UnsupportedOperationException");
	}

	@Test
	void aListenerThatThrowsChangesNothingOfASuccessAtOnce() {
		PolicySettings orders = policy(2, "0ms", Jitter.NONE);
		orders.getBudget().setMaxTokens(4.0);
		BackoffSettings settings = new BackoffSettings();
		settings.getPolicies().put("orders", orders);
		BackoffListener throwing = new BackoffListener() {

			@Override
			public void onSuccess(Outcome outcome, int attempts) {
				throw new IllegalStateException("a broken listener");
			}

		};
		BackoffOperationSource source = BackoffOperationSource.create(
				BackoffPolicies.of(settings, null, BackoffPolicy.defaults(), null), BackoffExecutor.builder().build(),
				this.scheduler, List.of(throwing), List.of(), (value) -> value, null);
		PolicyBackOff backOff = new BackoffRetries(source).backOff("orders", "orders-listener");
		PolicyBackOff.Cycle cycle = backOff.start();
		cycle.nextBackOff();
		double tokens = backOff.getOperation().getBudget().getTokens();
		backOff.succeededAtOnce();
		assertThat(backOff.getOperation().getBudget().getTokens()).isGreaterThan(tokens);
	}

	@Test
	void anUnknownPolicyIsRefusedNamingIt() {
		BackoffRetries retries = retries(policy(2, "0ms", Jitter.NONE), null);
		assertThatExceptionOfType(BackoffConfigurationException.class)
			.isThrownBy(() -> retries.backOff("payments", "payments-listener"))
			.withMessageContaining("payments");
	}

	private static int retriesOf(PolicyBackOff.Cycle cycle) {
		int retries = 0;
		while (cycle.nextBackOff() != BackOffExecution.STOP) {
			retries++;
		}
		return retries;
	}

	private static PolicySettings policy(int maxAttempts, String baseDelay, Jitter jitter) {
		PolicySettings settings = new PolicySettings();
		settings.setMaxAttempts(maxAttempts);
		settings.setBaseDelay(dev.backoff.spring.config.DurationFormat.parse(baseDelay));
		settings.setJitter(jitter);
		settings.setAbortOn(List.of(UnsupportedOperationException.class.getName()));
		return settings;
	}

	private BackoffRetries retries(PolicySettings orders, BackoffOperationSource @Nullable [] sourceOut) {
		BackoffSettings settings = new BackoffSettings();
		settings.getPolicies().put("orders", orders);
		SplittableRandom seeds = new SplittableRandom(42);
		BackoffOperationSource source = this.log.source(settings, seeds::split, this.scheduler);
		if (sourceOut != null) {
			sourceOut[0] = source;
		}
		return new BackoffRetries(source);
	}

}
