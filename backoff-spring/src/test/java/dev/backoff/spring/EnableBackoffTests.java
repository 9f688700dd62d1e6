package dev.backoff.spring;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.CurrentAttempt;
import dev.backoff.Jitter;
import dev.backoff.RecordingSleeper;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.operation.BackoffOperationSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.env.MockPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link EnableBackoff} in a plain Spring application: an {@link AnnotationConfigApplicationContext},
 * policies from the {@code Environment}. Spring Boot is on this module's test class path only for
 * {@code SettingsBinderBootParityTests} and for the other tests' {@code ApplicationContextRunner};
 * nothing here uses it, and the main code never does ({@code LayoutTests}).
 */
class EnableBackoffTests {

	@Test
	void retriesWithTheNamedPolicyFromTheEnvironment() {
		try (AnnotationConfigApplicationContext context = start(new MockPropertySource()
			.withProperty("backoff.policies.quotes.max-attempts", "3")
			.withProperty("backoff.policies.quotes.base-delay", "200ms")
			.withProperty("backoff.policies.quotes.jitter", "none"))) {
			Quotes quotes = context.getBean(Quotes.class);
			assertThat(AopUtils.isAopProxy(quotes)).isTrue();
			assertThat(quotes.flaky()).isEqualTo("quote after 3 attempts");
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).containsExactly(Duration.ofMillis(200),
					Duration.ofMillis(400));
		}
	}

	@Test
	void recordsTheMetersInTheApplicationsRegistry() {
		try (AnnotationConfigApplicationContext context = start(new MockPropertySource()
			.withProperty("backoff.policies.quotes.max-attempts", "3"))) {
			context.getBean(Quotes.class).flaky();
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("backoff.calls").tag("outcome", "success_after_retry").counter().count())
				.isEqualTo(1);
			assertThat(registry.get("backoff.retries").tag("method", "Quotes.flaky").counter().count()).isEqualTo(2);
		}
	}

	@Test
	void registersTheFailureCountersAtZeroOnlyWhenAskedToInASimpleRegistry() {
		try (AnnotationConfigApplicationContext context = start(quotesPolicy())) {
			context.getBean(Quotes.class).flaky();
			assertThat(context.getBean(MeterRegistry.class).find("backoff.calls").counters()).hasSize(1);
		}
		try (AnnotationConfigApplicationContext context = start(
				quotesPolicy().withProperty("backoff.metrics.failures-at-zero", "true"))) {
			context.getBean(Quotes.class).flaky();
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			// The six failure outcomes at 0 (admission_rejected only where the policy has admission), and the one this call ended with.
			assertThat(registry.find("backoff.calls").counters()).hasSize(7);
			assertThat(registry.get("backoff.calls").tag("outcome", "exhausted").counter().count()).isZero();
			assertThat(registry.find("backoff.calls").tag("outcome", "admission_rejected").counters()).isEmpty();
		}
		try (AnnotationConfigApplicationContext context = start(quotesPolicy()
			.withProperty("backoff.metrics.failures-at-zero", "true")
			.withProperty("backoff.policies.quotes.admission.enabled", "true"))) {
			// Its retries may be rejected: the counter is there either way, registered as the call ended.
			catchThrowable(() -> context.getBean(Quotes.class).flaky());
			assertThat(context.getBean(MeterRegistry.class)
				.find("backoff.calls")
				.tag("outcome", "admission_rejected")
				.counter()).isNotNull();
		}
	}

	@Test
	void fallsBackWhenTheAttemptsRunOut() {
		try (AnnotationConfigApplicationContext context = start(quotesPolicy())) {
			Quotes quotes = context.getBean(Quotes.class);
			assertThat(quotes.down()).isEqualTo("cached after IllegalStateException");
			assertThat(quotes.downCalls()).isEqualTo(2);
		}
	}

	@Test
	void aMethodReadsItsOwnAttemptNumberAndAMultiplierOfZeroTakenAsOneWaitsAFixedDelay() {
		try (AnnotationConfigApplicationContext context = start(quotesPolicy())) {
			Quotes quotes = context.getBean(Quotes.class);
			assertThat(quotes.numbered()).isEqualTo("ok");
			assertThat(context.getBean(Quotes.class).attemptsSeen()).containsExactly(1, 2, 3);
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).containsExactly(Duration.ofMillis(10),
					Duration.ofMillis(10));
			assertThat(CurrentAttempt.number()).isZero();
		}
	}

	@Test
	void aBrokenRuleStopsStartUpNamingThePropertyTheValueAndTheRule() {
		assertThat(startUpFailure(new MockPropertySource().withProperty("backoff.policies.quotes.max-attempts", "0")))
			.hasMessageStartingWith("backoff.policies.quotes.max-attempts was '0', but ");
	}

	@Test
	void aValueThatDoesNotConvertStopsStartUp() {
		assertThat(startUpFailure(new MockPropertySource().withProperty("backoff.defaults.jitter", "fulll")))
			.hasMessage("backoff.defaults.jitter was 'fulll', but must be one of none, full, equal, decorrelated. "
					+ "Update backoff.defaults.jitter: it must be one of none, full, equal, decorrelated.");
	}

	@Test
	void aTypoStopsStartUpInsteadOfBeingIgnored() {
		assertThat(startUpFailure(new MockPropertySource().withProperty("backoff.policies.quotes.max-atempts", "3")))
			.hasMessageStartingWith("backoff.policies.quotes.max-atempts was '3', but is not a Backoff setting");
	}

	@Test
	void aTypoNamesTheNearestSetting() {
		assertThat(startUpFailure(new MockPropertySource().withProperty("backoff.policies.quotes.maxAtempts", "3")))
			.hasMessageEndingWith(". Did you mean backoff.policies.quotes.max-attempts? Correct the key's spelling, "
					+ "or remove it.");
	}

	@Test
	void aFractionWhereAWholeNumberBelongsStopsStartUp() {
		assertThat(startUpFailure(new MockPropertySource().withProperty("backoff.defaults.max-attempts", "2.9")))
			.hasMessageStartingWith("backoff.defaults.max-attempts was '2.9', but must be a whole number");
	}

	@Test
	void attributesTakeBeanExpressionsAsWellAsPlaceholders() {
		try (AnnotationConfigApplicationContext context = start(quotesPolicy().withProperty("quotes.delay", "300ms"))) {
			Quotes quotes = context.getBean(Quotes.class);
			assertThat(quotes.tuned()).isEqualTo("tuned after 4 attempts");
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).hasSize(3)
				.allSatisfy((sleep) -> assertThat(sleep).isLessThanOrEqualTo(Duration.ofMillis(300)));
		}
	}

	@Test
	void aBeanExpressionThatDoesNotEvaluateStopsStartUp() {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getEnvironment().getPropertySources().addFirst(quotesPolicy());
		context.register(Application.class, BrokenExpression.class);
		Throwable failure = catchThrowable(context::refresh);
		context.close();
		while (failure != null && !(failure instanceof BackoffConfigurationException)) {
			failure = failure.getCause();
		}
		assertThat(failure).hasMessageStartingWith("@Backoff(maxAttempts) on Broken.call was '#{@nowhere.attempts}', "
				+ "but must only use bean expressions that evaluate");
	}

	@Test
	void aDurationAttributeWithNoNumberStopsStartUpRatherThanReadAsZero() {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getEnvironment().getPropertySources().addFirst(quotesPolicy());
		context.register(Application.class, DashedDelay.class);
		Throwable failure = catchThrowable(context::refresh);
		context.close();
		while (failure != null && !(failure instanceof BackoffConfigurationException)) {
			failure = failure.getCause();
		}
		assertThat(failure).hasMessageStartingWith("@Backoff(baseDelay) on Dashed.call was '-', but must be a duration such as");
	}

	@Test
	void anAnnotationOnAnInterfaceCoversItsUnannotatedImplementation() {
		try (AnnotationConfigApplicationContext context = start(quotesPolicy())) {
			QuoteClient client = context.getBean(QuoteClient.class);
			assertThat(AopUtils.isAopProxy(client)).isTrue();
			assertThat(client.fetch()).isEqualTo("quote after 3 attempts");
		}
	}

	@Test
	void aFallbackMayTakeTheFailureFirstAsSpringRetrysRecoverDoes() {
		try (AnnotationConfigApplicationContext context = start(quotesPolicy())) {
			assertThat(context.getBean(Recovering.class).price("ACME")).isEqualTo("ACME: recovered from down");
		}
	}

	@Test
	void overloadsOfTheFallbackAreChosenByTheFailuresType() {
		try (AnnotationConfigApplicationContext context = start(quotesPolicy())) {
			Recovering recovering = context.getBean(Recovering.class);
			assertThat(recovering.fail(new IllegalArgumentException("bad"))).isEqualTo("argument: bad");
			assertThat(recovering.fail(new IllegalStateException("down"))).isEqualTo("runtime: down");
			assertThat(recovering.fail(new java.io.UncheckedIOException("io", new java.io.IOException())))
				.isEqualTo("runtime: io");
		}
	}

	@Test
	void overloadsThatTakeNoneOfTheFailureLeaveItToTheCaller() {
		try (AnnotationConfigApplicationContext context = start(quotesPolicy())) {
			Recovering recovering = context.getBean(Recovering.class);
			assertThat(catchThrowable(() -> recovering.narrow(new IllegalStateException("down"))))
				.isInstanceOf(IllegalStateException.class)
				.hasMessage("down");
			assertThat(recovering.narrow(new IllegalArgumentException("bad"))).isEqualTo("argument: bad");
		}
	}

	@Test
	void offWithBackoffEnabledFalse() {
		try (AnnotationConfigApplicationContext context = start(quotesPolicy().withProperty("backoff.enabled", "false"))) {
			assertThat(context.getBeansOfType(BackoffOperationSource.class)).isEmpty();
			Quotes quotes = context.getBean(Quotes.class);
			assertThat(AopUtils.isAopProxy(quotes)).isFalse();
		}
	}

	private static MockPropertySource quotesPolicy() {
		return new MockPropertySource().withProperty("backoff.policies.quotes.max-attempts", "3");
	}

	/** Starts the application, expecting start-up to fail for a Backoff setting. */
	private static BackoffConfigurationException startUpFailure(MockPropertySource properties) {
		Throwable failure = catchThrowable(() -> start(properties).close());
		assertThat(failure).isInstanceOf(BeanCreationException.class);
		while (failure != null && !(failure instanceof BackoffConfigurationException)) {
			failure = failure.getCause();
		}
		assertThat(failure).as("a BackoffConfigurationException in the cause chain").isNotNull();
		return (BackoffConfigurationException) failure;
	}

	private static AnnotationConfigApplicationContext start(MockPropertySource properties) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getEnvironment().getPropertySources().addFirst(properties);
		context.register(Application.class);
		try {
			context.refresh();
		}
		catch (RuntimeException ex) {
			context.close();
			throw ex;
		}
		return context;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableBackoff
	static class Application {

		@Bean
		RecordingSleeper sleeper() {
			return new RecordingSleeper();
		}

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		Quotes quotes() {
			return new Quotes();
		}

		@Bean
		QuoteClient quoteClient() {
			return new FlakyQuoteClient();
		}

		@Bean
		Recovering recovering() {
			return new Recovering();
		}

		@Bean
		Settings settings() {
			return new Settings();
		}

	}

	/** Declared as Spring Retry users often declare {@code @Retryable}: on the interface. */
	interface QuoteClient {

		@Backoff("quotes")
		String fetch();

	}

	static class FlakyQuoteClient implements QuoteClient {

		private final AtomicInteger calls = new AtomicInteger();

		@Override
		public String fetch() {
			if (this.calls.incrementAndGet() < 3) {
				throw new IllegalStateException("not yet");
			}
			return "quote after " + this.calls.get() + " attempts";
		}

	}

	/** Fallbacks in Spring Retry's {@code @Recover} shapes: the failure first, one overload per failure type. */
	static class Recovering {

		@Backoff(maxAttempts = "2", baseDelay = "1ms", fallback = "recover")
		public String price(String symbol) {
			throw new IllegalStateException("down");
		}

		public String recover(IllegalStateException failure, String symbol) {
			return symbol + ": recovered from " + failure.getMessage();
		}

		@Backoff(maxAttempts = "2", baseDelay = "1ms", fallback = "recoverFail")
		public String fail(RuntimeException failure) {
			throw failure;
		}

		public String recoverFail(RuntimeException failure, RuntimeException argument) {
			return "runtime: " + failure.getMessage();
		}

		public String recoverFail(IllegalArgumentException failure, RuntimeException argument) {
			return "argument: " + failure.getMessage();
		}

		@Backoff(maxAttempts = "2", baseDelay = "1ms", fallback = "recoverNarrow")
		public String narrow(RuntimeException failure) {
			throw failure;
		}

		public String recoverNarrow(IllegalArgumentException failure, RuntimeException argument) {
			return "argument: " + failure.getMessage();
		}

	}

	/** What a bean expression in an attribute reads, as Spring Retry users write {@code #{@settings.attempts}}. */
	static class Settings {

		public int getAttempts() {
			return 4;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BrokenExpression {

		@Bean
		Broken broken() {
			return new Broken();
		}

	}

	static class DashedDelay {

		@Bean
		Dashed dashed() {
			return new Dashed();
		}

	}

	static class Dashed {

		@Backoff(baseDelay = "-")
		public String call() {
			return "never retried";
		}

	}

	static class Broken {

		@Backoff(maxAttempts = "#{@nowhere.attempts}")
		public String call() {
			return "never retried";
		}

	}

	static class Quotes {

		final AtomicInteger flakyCalls = new AtomicInteger();

		final AtomicInteger downCalls = new AtomicInteger();

		final AtomicInteger tunedCalls = new AtomicInteger();

		@Backoff("quotes")
		public String flaky() {
			if (this.flakyCalls.incrementAndGet() < 3) {
				throw new IllegalStateException("not yet");
			}
			return "quote after " + this.flakyCalls.get() + " attempts";
		}

		@Backoff(maxAttempts = "2", baseDelay = "PT0.01S", fallback = "cached")
		public String down() {
			this.downCalls.incrementAndGet();
			throw new IllegalStateException("down");
		}

		@Backoff(maxAttempts = "#{@settings.attempts}", baseDelay = "${quotes.delay:100ms}",
				maxDelay = "${quotes.delay:100ms}")
		public String tuned() {
			if (this.tunedCalls.incrementAndGet() < 4) {
				throw new IllegalStateException("not yet");
			}
			return "tuned after " + this.tunedCalls.get() + " attempts";
		}

		final List<Integer> attempts = new CopyOnWriteArrayList<>();

		/** The multiplier as the Spring Retry recipe writes one known only at start-up, here 0.0. */
		@Backoff(maxAttempts = "3", baseDelay = "10ms", multiplier = "#{(${quotes.multiplier:0.0}) > 1 ? (${quotes.multiplier:0.0}) : 1}",
				jitter = Jitter.NONE)
		public String numbered() {
			this.attempts.add(CurrentAttempt.number());
			if (this.attempts.size() < 3) {
				throw new IllegalStateException("not yet");
			}
			return "ok";
		}

		/** Read through the proxy, which has no state of its own. */
		public int downCalls() {
			return this.downCalls.get();
		}

		public List<Integer> attemptsSeen() {
			return this.attempts;
		}

		public String cached(IllegalStateException failure) {
			return "cached after " + failure.getClass().getSimpleName();
		}

	}

}
