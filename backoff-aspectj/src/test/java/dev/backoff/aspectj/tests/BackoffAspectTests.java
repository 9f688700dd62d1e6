package dev.backoff.aspectj.tests;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.backoff.Backoff;
import dev.backoff.RecordingSleeper;
import dev.backoff.aspectj.BackoffAspect;
import dev.backoff.aspectj.BackoffAspectAutoConfiguration;
import dev.backoff.aspectj.BackoffAspectConfigurer;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import dev.backoff.spring.aop.BackoffAnnotationBeanPostProcessor;
import dev.backoff.spring.metrics.BackoffMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@code backoff.mode=aspectj} with load-time weaving: the woven {@code BackoffAspect} retries
 * what proxies cannot see, through the same engine, and never on top of a proxy. Runs with
 * the aspectjweaver agent (the {@code aspectj-weaving} execution of Surefire).
 */
@Tag("aspectj-weaving")
class BackoffAspectTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, BackoffAutoConfiguration.class,
				BackoffAspectAutoConfiguration.class, BackoffMetricsAutoConfiguration.class))
		.withPropertyValues("backoff.mode=aspectj", "backoff.defaults.jitter=none")
		.withBean(SimpleMeterRegistry.class)
		.withBean(RecordingSleeper.class)
		.withBean(Quotes.class)
		.withBean(TypeLevel.class)
		.withBean(Caller.class);

	@Test
	void retriesABeanCallingItsOwnBackoffMethod() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.attempts.failNext(2);
			assertThat(quotes.refresh()).isEqualTo("ok after 3");
			assertThat(quotes.attempts.count()).isEqualTo(3);
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).containsExactly(Duration.ofMillis(100),
					Duration.ofMillis(200));
		});
	}

	@Test
	void retriesAPackagePrivateBackoffMethod() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.attempts.failNext(1);
			assertThat(quotes.fetchPackagePrivate()).isEqualTo("ok after 2");
			assertThat(quotes.attempts.count()).isEqualTo(2);
		});
	}

	@Test
	void retriesAPrivateBackoffMethod() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.attempts.failNext(2);
			assertThat(quotes.refreshPrivately()).isEqualTo("ok after 3");
			assertThat(quotes.attempts.count()).isEqualTo(3);
		});
	}

	@Test
	void retriesAFinalBackoffMethod() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.attempts.failNext(2);
			assertThat(quotes.fetchFinal()).isEqualTo("ok after 3");
			assertThat(quotes.attempts.count()).isEqualTo(3);
		});
	}

	@Test
	void retriesACallFromAnotherBeanExactlyMaxAttemptsTimes() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.attempts.failNext(100);
			assertThatIllegalStateException().isThrownBy(() -> context.getBean(Caller.class).fetch())
				.withMessage("attempt 3 failed");
			assertThat(quotes.attempts.count()).isEqualTo(3);
		});
	}

	@Test
	void neverRetriesASelfInvocationTwice() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.attempts.failNext(100);
			assertThatIllegalStateException().isThrownBy(quotes::refresh).withMessage("attempt 3 failed");
			assertThat(quotes.attempts.count()).isEqualTo(3);
		});
	}

	@Test
	void createsNoProxy() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(AopUtils.isAopProxy(context.getBean(Quotes.class))).isFalse();
			assertThat(AopUtils.isAopProxy(context.getBean(TypeLevel.class))).isFalse();
			assertThat(context).doesNotHaveBean(BackoffAnnotationBeanPostProcessor.class)
				.hasSingleBean(BackoffAspectConfigurer.class);
		});
	}

	@Test
	void recordsTheMetersOncePerCall() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.attempts.failNext(1);
			quotes.refresh();
			quotes.attempts.failNext(0);
			quotes.refresh();
			quotes.attempts.failNext(2);
			context.getBean(Caller.class).fetch();
			quotes.attempts.failNext(100);
			assertThatIllegalStateException().isThrownBy(quotes::refresh);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(sum(registry, BackoffMetrics.CALLS)).isEqualTo(4);
			assertThat(registry.get(BackoffMetrics.CALLS).tag("method", "Quotes.fetch").tag("outcome", "exhausted")
				.counter()
				.count()).isEqualTo(1);
			assertThat(sum(registry, BackoffMetrics.RETRIES)).isEqualTo(1 + 0 + 2 + 2);
			assertThat(registry.get(BackoffMetrics.DELAY).tag("method", "Quotes.fetch").timer().count()).isEqualTo(5);
		});
	}

	@Test
	void callsTheFallbackOnTheTarget() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.attempts.failNext(100);
			assertThat(quotes.fetchOrCached()).isEqualTo("cached after attempt 3 failed");
			assertThat(quotes.attempts.count()).isEqualTo(3);
		});
	}

	@Test
	void retriesACompletableFutureFromTheSchedulerThreads() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.attempts.failNext(2);
			assertThat(quotes.fetchAsync().get(10, TimeUnit.SECONDS)).isEqualTo("ok after 3");
			assertThat(quotes.attempts.count()).isEqualTo(3);
		});
	}

	@Test
	void retriesAMonoByResubscribing() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.attempts.failNext(2);
			assertThat(quotes.fetchMono().block(Duration.ofSeconds(10))).isEqualTo("ok after 3");
			assertThat(quotes.attempts.count()).isEqualTo(3);
		});
	}

	@Test
	void typeLevelBackoffCoversPublicMethodsOnly() {
		this.runner.run((context) -> {
			TypeLevel typeLevel = context.getBean(TypeLevel.class);
			typeLevel.attempts.failNext(2);
			assertThat(typeLevel.open()).isEqualTo("ok after 3");
			typeLevel.attempts.failNext(1);
			assertThatIllegalStateException().isThrownBy(typeLevel::hidden).withMessage("attempt 1 failed");
			assertThat(typeLevel.attempts.count()).isEqualTo(1);
		});
	}

	@Test
	void runsInsideTheOtherWovenAdviceOnce() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.attempts.failNext(2);
			RecordingAspect.entries.set(0);
			assertThat(quotes.fetchRecorded()).isEqualTo("ok after 3");
			assertThat(quotes.attempts.count()).isEqualTo(3);
			assertThat(RecordingAspect.entries).hasValue(1);
		});
	}

	@Test
	void retriesACompletableFutureInsideTheOtherWovenAdvice() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.attempts.failNext(2);
			RecordingAspect.entries.set(0);
			assertThat(quotes.fetchRecordedAsync().get(10, TimeUnit.SECONDS)).isEqualTo("ok after 3");
			assertThat(quotes.attempts.count()).isEqualTo(3);
			assertThat(RecordingAspect.entries).hasValue(1);
		});
	}

	@Test
	void retriesOnceThroughAClassProxyOfAWovenBean() {
		this.runner.run((context) -> {
			TypeLevel target = context.getBean(TypeLevel.class);
			ProxyFactory factory = new ProxyFactory(target);
			factory.setProxyTargetClass(true);
			factory.addAdvice((MethodInterceptor) (invocation) -> invocation.proceed());
			TypeLevel proxy = (TypeLevel) factory.getProxy();
			assertThat(AopUtils.isCglibProxy(proxy)).isTrue();
			target.attempts.failNext(100);
			assertThatIllegalStateException().isThrownBy(proxy::open).withMessage("attempt 3 failed");
			assertThat(target.attempts.count()).isEqualTo(3);
		});
	}

	private static double sum(MeterRegistry registry, String name) {
		return registry.find(name).counters().stream().mapToDouble(Counter::count).sum();
	}

	static class Quotes {

		final Attempts attempts = new Attempts();

		public String refresh() {
			return fetch();
		}

		@Backoff
		public String fetch() {
			return this.attempts.attempt();
		}

		@Backoff
		String fetchPackagePrivate() {
			return this.attempts.attempt();
		}

		public String refreshPrivately() {
			return fetchPrivate();
		}

		@Backoff
		private String fetchPrivate() {
			return this.attempts.attempt();
		}

		@Backoff
		public final String fetchFinal() {
			return this.attempts.attempt();
		}

		@Backoff(fallback = "cached")
		String fetchOrCached() {
			return this.attempts.attempt();
		}

		String cached(Throwable failure) {
			return "cached after " + failure.getMessage();
		}

		@Backoff(baseDelay = "0ms")
		CompletableFuture<String> fetchAsync() {
			return attemptAsync();
		}

		private CompletableFuture<String> attemptAsync() {
			try {
				return CompletableFuture.completedFuture(this.attempts.attempt());
			}
			catch (IllegalStateException ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}

		@Backoff(baseDelay = "0ms")
		Mono<String> fetchMono() {
			return Mono.fromSupplier(this.attempts::attempt);
		}

		@Backoff
		@Recorded
		String fetchRecorded() {
			return this.attempts.attempt();
		}

		@Backoff(baseDelay = "0ms")
		@Recorded
		CompletableFuture<String> fetchRecordedAsync() {
			return attemptAsync();
		}

	}

	@Backoff
	static class TypeLevel {

		final Attempts attempts = new Attempts();

		public String open() {
			return this.attempts.attempt();
		}

		String hidden() {
			return this.attempts.attempt();
		}

	}

	static class Caller {

		private final Quotes quotes;

		Caller(Quotes quotes) {
			this.quotes = quotes;
		}

		String fetch() {
			return this.quotes.fetch();
		}

	}

}
