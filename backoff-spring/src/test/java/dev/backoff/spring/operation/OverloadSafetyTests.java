package dev.backoff.spring.operation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.Nested;
import dev.backoff.RecordingSleeper;
import dev.backoff.RetryBudget;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.metrics.BackoffPolicyMetrics;
import dev.backoff.spring.metrics.BackoffMetrics;
import dev.backoff.spring.operation.BackoffOperationSource;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClientResponseException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Overload safety through the starter: retry budgets from {@code backoff.*.budget}, their
 * gauge and outcome, {@code max-retry-after} and HTTP {@code Retry-After}, the default HTTP
 * classification, and the nested-retry guard on the blocking,
 * {@code CompletableFuture} and Reactor paths.
 */
class OverloadSafetyTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class)
		.withBean(RecordingSleeper.class)
		.withBean(Remote.class)
		.withBean(Http.class)
		.withBean(Inner.class)
		.withBean(Middle.class)
		.withBean(Outer.class)
		.withBean(ReactiveInner.class)
		.withBean(ReactiveOuter.class)
		.withPropertyValues("backoff.defaults.base-delay=10ms", "backoff.policies.remote.max-attempts=3");

	// Budgets

	@Test
	void aPolicyHasNoBudgetUnlessConfigured() {
		this.runner.run((context) -> {
			BackoffPolicies policies = context.getBean(BackoffPolicies.class);
			assertThat(policies.getBudget("remote")).isNull();
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.find(BackoffPolicyMetrics.TOKENS).gauges()).isEmpty();
			// Every attempt fails: the call ends exhausted, never budget_exhausted.
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(context.getBean(Remote.class)::fetch);
			assertThat(context.getBean(Remote.class).calls()).isEqualTo(3);
			assertThat(registry.find(BackoffMetrics.CALLS).tag("outcome", "budget_exhausted").counters()).isEmpty();
			assertThat(registry.get(BackoffMetrics.CALLS).tag("method", "Remote.fetch").tag("outcome", "exhausted")
				.counter().count()).isEqualTo(1);
		});
	}

	@Test
	void maxTokensAloneTurnsTheBudgetOnWithTheDefaultRatio() {
		this.runner.withPropertyValues("backoff.policies.remote.budget.max-tokens=4").run((context) -> {
			RetryBudget budget = context.getBean(BackoffPolicies.class).getBudget("remote");
			assertThat(budget).isNotNull();
			assertThat(budget.getMaxTokens()).isEqualTo(4.0);
			assertThat(budget.getTokenRatio()).isEqualTo(RetryBudget.DEFAULT_TOKEN_RATIO);
		});
	}

	@Test
	void enabledAloneTurnsTheBudgetOnWithTheDefaults() {
		this.runner.withPropertyValues("backoff.policies.remote.budget.enabled=true").run((context) -> {
			RetryBudget budget = context.getBean(BackoffPolicies.class).getBudget("remote");
			assertThat(budget.getMaxTokens()).isEqualTo(10.0);
			assertThat(budget.getTokenRatio()).isEqualTo(0.1);
		});
	}

	@Test
	void eachPolicyGetsItsOwnBucketFromTheDefaults() {
		this.runner
			.withPropertyValues("backoff.defaults.budget.max-tokens=20", "backoff.policies.other.max-attempts=2",
					"backoff.policies.off.budget.enabled=false")
			.run((context) -> {
				BackoffPolicies policies = context.getBean(BackoffPolicies.class);
				RetryBudget defaults = policies.getBudget(BackoffPolicies.DEFAULTS);
				RetryBudget remote = policies.getBudget("remote");
				RetryBudget other = policies.getBudget("other");
				assertThat(remote.getMaxTokens()).isEqualTo(other.getMaxTokens()).isEqualTo(20.0);
				assertThat(remote).isNotSameAs(other).isNotSameAs(defaults);
				assertThat(policies.getBudget("off")).isNull();
			});
	}

	@Test
	void methodsOfOnePolicyShareItsBudgetAndASpentOneEndsCallsAsBudgetExhausted() {
		this.runner.withPropertyValues("backoff.policies.remote.budget.max-tokens=4").run((context) -> {
			Remote remote = context.getBean(Remote.class);
			RetryBudget budget = context.getBean(BackoffPolicies.class).getBudget("remote");
			BackoffOperationSource operations = context.getBean(BackoffOperationSource.class);
			assertThat(operations.getAll()).extracting((operation) -> operation.getBudget())
				.filteredOn((shared) -> shared != null)
				.hasSize(2)
				.allSatisfy((shared) -> assertThat(shared).isSameAs(budget));
			// 4 tokens: 3 left after the first failure (retry), 2 after the second (stop).
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(remote::fetch);
			assertThat(remote.calls()).isEqualTo(2);
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(remote::fetchMore);
			assertThat(remote.calls()).isEqualTo(3);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get(BackoffMetrics.CALLS).tag("method", "Remote.fetch").tag("outcome", "budget_exhausted")
				.counter().count()).isEqualTo(1);
			assertThat(registry.get(BackoffMetrics.CALLS).tag("method", "Remote.fetchMore").tag("outcome", "budget_exhausted")
				.counter().count()).isEqualTo(1);
			assertThat(registry.get(BackoffPolicyMetrics.TOKENS).tag("policy", "remote").gauge().value()).isEqualTo(1.0);
		});
	}

	@Test
	void theTokensGaugeDescribesTheRuleTheBudgetApplies() {
		this.runner.withPropertyValues("backoff.policies.remote.budget.max-tokens=20").run((context) -> {
			RetryBudget budget = context.getBean(BackoffPolicies.class).getBudget("remote");
			for (int i = 0; i < 9; i++) {
				budget.onFailure();
			}
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			Gauge tokens = registry.get(BackoffPolicyMetrics.TOKENS).tag("policy", "remote").gauge();
			assertThat(tokens.value()).isEqualTo(11.0);
			// Not "half of max-tokens": 11 of 20 is more than half, and still the next failure is not retried.
			assertThat(tokens.getId().getDescription()).contains("of 20 tokens, 11 already refuses");
			Remote remote = context.getBean(Remote.class);
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(remote::fetch);
			assertThat(remote.calls()).isOne();
			assertThat(registry.get(BackoffMetrics.CALLS).tag("method", "Remote.fetch").tag("outcome", "budget_exhausted")
				.counter().count()).isEqualTo(1);
		});
	}

	@Test
	void successesRefillTheGauge() {
		this.runner.withPropertyValues("backoff.policies.remote.budget.max-tokens=4",
				"backoff.policies.remote.budget.token-ratio=0.5").run((context) -> {
					Remote remote = context.getBean(Remote.class);
					assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(remote::fetch);
					remote.heal();
					remote.fetch();
					MeterRegistry registry = context.getBean(MeterRegistry.class);
					assertThat(registry.get(BackoffPolicyMetrics.TOKENS).tag("policy", "remote").gauge().value())
						.isEqualTo(2.5);
				});
	}

	@Test
	void aBadBudgetStopsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("backoff.policies.remote.budget.max-tokens=0").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(configurationError(context.getStartupFailure()).getMessage())
				.contains("backoff.policies.remote.budget.max-tokens")
				.contains("must be at least 1");
		});
	}

	@Test
	void aBadInheritedRatioIsReportedUnderTheDefaults() {
		this.runner.withPropertyValues("backoff.defaults.budget.token-ratio=0").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(configurationError(context.getStartupFailure()).getMessage())
				.contains("backoff.defaults.budget.token-ratio")
				.contains("must be at least 0.001");
		});
	}

	// Retry-After

	@Test
	void maxRetryAfterDefaultsToMaxDelayAndCanBeSet() {
		this.runner
			.withPropertyValues("backoff.defaults.max-delay=5s", "backoff.policies.patient.max-retry-after=2m")
			.run((context) -> {
				BackoffPolicies policies = context.getBean(BackoffPolicies.class);
				assertThat(policies.get("remote").getMaxRetryAfter()).isEqualTo(Duration.ofSeconds(5));
				assertThat(policies.get("patient").getMaxRetryAfter()).isEqualTo(Duration.ofMinutes(2));
			});
	}

	@Test
	void aNegativeMaxRetryAfterStopsStartUp() {
		this.runner.withPropertyValues("backoff.policies.remote.max-retry-after=-1s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(configurationError(context.getStartupFailure()).getMessage())
				.contains("backoff.policies.remote.max-retry-after")
				.contains("must be zero or positive");
		});
	}

	// HTTP

	@Test
	void withSpringWebHttpFailuresAreClassifiedByStatus() {
		this.runner.run((context) -> {
			Http http = context.getBean(Http.class);
			assertThatExceptionOfType(HttpClientErrorException.class).isThrownBy(() -> http.fail(404));
			assertThat(http.calls()).isEqualTo(1);
			assertThatExceptionOfType(HttpServerErrorException.class).isThrownBy(() -> http.fail(503));
			assertThat(http.calls()).isEqualTo(1 + 3);
			assertThatExceptionOfType(HttpClientErrorException.class).isThrownBy(() -> http.fail(429));
			assertThat(http.calls()).isEqualTo(1 + 3 + 3);
		});
	}

	@Test
	void aRetryAfterHeaderLengthensTheWait() {
		this.runner.run((context) -> {
			Http http = context.getBean(Http.class);
			assertThatExceptionOfType(HttpClientErrorException.class).isThrownBy(() -> http.throttle("7"));
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).containsExactly(Duration.ofSeconds(7),
					Duration.ofSeconds(7));
		});
	}

	@Test
	void aRetryAfterBeyondMaxRetryAfterEndsTheCallAtOnce() {
		this.runner.withPropertyValues("backoff.defaults.max-retry-after=5s").run((context) -> {
			Http http = context.getBean(Http.class);
			assertThatExceptionOfType(HttpClientErrorException.class).isThrownBy(() -> http.throttle("3600"));
			assertThat(http.calls()).isEqualTo(1);
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).isEmpty();
			assertThat(context.getBean(MeterRegistry.class)
				.get(BackoffMetrics.CALLS)
				.tag("method", "Http.throttle")
				.tag("outcome", "timed_out")
				.counter()
				.count()).isEqualTo(1);
		});
	}

	@Test
	void retryOnOverridesTheHttpClassification() {
		this.runner.withPropertyValues("backoff.defaults.retry-on=org.springframework.web.client.HttpClientErrorException")
			.run((context) -> {
				Http http = context.getBean(Http.class);
				assertThatExceptionOfType(HttpClientErrorException.class).isThrownBy(() -> http.fail(404));
				assertThat(http.calls()).isEqualTo(3);
			});
	}

	@Test
	void withoutSpringWebEveryExceptionIsRetried() {
		HttpClientErrorException notFound = HttpClientErrorException.create(HttpStatus.NOT_FOUND, "Not Found", null,
				null, null);
		this.runner.run((context) -> assertThat(context.getBean(BackoffPolicies.class).getDefaults().getRules().isRetryable(notFound))
			.isFalse());
		// Only @EnableBackoff: the test's own beans need spring-web.
		new ApplicationContextRunner().withUserConfiguration(EnabledBackoff.class)
			.withClassLoader(new FilteredClassLoader(RestClientResponseException.class))
			.run((context) -> assertThat(context.getBean(BackoffPolicies.class).getDefaults().getRules().isRetryable(notFound))
				.isTrue());
	}

	// Nesting

	@Test
	void threeNestedBeansOfThreeAttemptsCallTheDependencyThreeTimes() {
		this.runner.run((context) -> {
			Outer outer = context.getBean(Outer.class);
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(outer::call);
			assertThat(context.getBean(Inner.class).calls()).isEqualTo(3);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get(BackoffMetrics.CALLS).tag("method", "Outer.call").tag("outcome", "exhausted")
				.counter().count()).isEqualTo(1);
			assertThat(registry.get(BackoffMetrics.CALLS).tag("method", "Middle.call").tag("outcome", "nested")
				.counter().count()).isEqualTo(3);
			assertThat(registry.get(BackoffMetrics.CALLS).tag("method", "Inner.call").tag("outcome", "nested")
				.counter().count()).isEqualTo(3);
		});
	}

	@Test
	void independentNestingRetriesAtEveryLevel() {
		this.runner.withPropertyValues("backoff.nested=independent").run((context) -> {
			assertThat(context.getBean(dev.backoff.BackoffExecutor.class).getNested()).isEqualTo(Nested.INDEPENDENT);
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(context.getBean(Outer.class)::call);
			assertThat(context.getBean(Inner.class).calls()).isEqualTo(27);
		});
	}

	@Test
	void aFutureReturningBeanCalledInsideABlockingAttemptMakesOneAttemptPerOuterAttempt() {
		this.runner.run((context) -> {
			Outer outer = context.getBean(Outer.class);
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(outer::callAsync);
			assertThat(context.getBean(Inner.class).asyncCalls()).isEqualTo(3);
		});
	}

	@Test
	void aMonoSubscribedInsideAnotherMonosAttemptOnAnotherThreadMakesOneAttempt() {
		this.runner.run((context) -> {
			ReactiveOuter outer = context.getBean(ReactiveOuter.class);
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> outer.call().block(TIMEOUT));
			assertThat(context.getBean(ReactiveInner.class).calls()).isEqualTo(3);
		});
	}

	@Test
	void independentMonosRetryAtBothLevels() {
		this.runner.withPropertyValues("backoff.nested=independent").run((context) -> {
			ReactiveOuter outer = context.getBean(ReactiveOuter.class);
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> outer.call().block(TIMEOUT));
			assertThat(context.getBean(ReactiveInner.class).calls()).isEqualTo(9);
		});
	}

	@Test
	void aPolicysBudgetIsKeptBesideThePolicyValue() {
		this.runner.withPropertyValues("backoff.policies.remote.budget.max-tokens=4").run((context) -> {
			BackoffPolicies policies = context.getBean(BackoffPolicies.class);
			assertThat(policies.getBudget("remote")).hasToString("RetryBudget[maxTokens=4.0, tokenRatio=0.1, throttleCost=0.357, tokens=4.0]");
			assertThat(policies.get("remote").toString()).doesNotContain("budget");
		});
	}

	private static BackoffConfigurationException configurationError(Throwable failure) {
		Throwable current = failure;
		while (current != null && !(current instanceof BackoffConfigurationException)) {
			current = current.getCause();
		}
		assertThat(current).as("a BackoffConfigurationException in the cause chain of %s", failure).isNotNull();
		return (BackoffConfigurationException) current;
	}

	static class Remote {

		final AtomicInteger calls = new AtomicInteger();

		volatile boolean healthy;

		int calls() {
			return this.calls.get();
		}

		void heal() {
			this.healthy = true;
		}

		@Backoff("remote")
		String fetch() {
			this.calls.incrementAndGet();
			if (this.healthy) {
				return "ok";
			}
			throw new UncheckedIOException(new IOException("down"));
		}

		@Backoff(value = "remote", maxAttempts = "5")
		String fetchMore() {
			return fetch();
		}

	}

	static class Http {

		final AtomicInteger calls = new AtomicInteger();

		int calls() {
			return this.calls.get();
		}

		@Backoff
		String fail(int status) {
			this.calls.incrementAndGet();
			HttpStatus code = HttpStatus.valueOf(status);
			throw (status >= 500) ? HttpServerErrorException.create(code, code.getReasonPhrase(), null, null, null)
					: HttpClientErrorException.create(code, code.getReasonPhrase(), null, null, null);
		}

		@Backoff
		String throttle(String retryAfter) {
			this.calls.incrementAndGet();
			HttpHeaders headers = new HttpHeaders();
			headers.set(HttpHeaders.RETRY_AFTER, retryAfter);
			throw HttpClientErrorException.create(HttpStatus.TOO_MANY_REQUESTS, "Too Many Requests", headers, null, null);
		}

	}

	static class Inner {

		final AtomicInteger calls = new AtomicInteger();

		final AtomicInteger asyncCalls = new AtomicInteger();

		int calls() {
			return this.calls.get();
		}

		int asyncCalls() {
			return this.asyncCalls.get();
		}

		@Backoff
		String call() {
			this.calls.incrementAndGet();
			throw new UncheckedIOException(new IOException("down"));
		}

		@Backoff
		CompletableFuture<String> callAsync() {
			this.asyncCalls.incrementAndGet();
			return CompletableFuture.failedFuture(new UncheckedIOException(new IOException("down")));
		}

	}

	static class Middle {

		@Autowired
		Inner inner;

		@Backoff
		String call() {
			return this.inner.call();
		}

	}

	static class Outer {

		@Autowired
		Middle middle;

		@Autowired
		Inner inner;

		@Backoff
		String call() {
			return this.middle.call();
		}

		@Backoff
		String callAsync() {
			try {
				return this.inner.callAsync().join();
			}
			catch (java.util.concurrent.CompletionException ex) {
				throw (RuntimeException) ex.getCause();
			}
		}

	}

	static class ReactiveInner {

		final AtomicInteger calls = new AtomicInteger();

		int calls() {
			return this.calls.get();
		}

		@Backoff
		Mono<String> call() {
			return Mono.fromCallable(() -> {
				this.calls.incrementAndGet();
				throw new UncheckedIOException(new IOException("down"));
			});
		}

	}

	static class ReactiveOuter {

		@Autowired
		ReactiveInner inner;

		@Backoff
		Mono<String> call() {
			// The inner call is made at subscription, on Reactor's threads after a retry: only the
			// context can tell it that it is nested.
			return Mono.just("go").publishOn(reactor.core.scheduler.Schedulers.boundedElastic())
				.flatMap((ignored) -> this.inner.call());
		}

	}

}
