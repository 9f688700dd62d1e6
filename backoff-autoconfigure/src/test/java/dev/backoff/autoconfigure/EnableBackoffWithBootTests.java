package dev.backoff.autoconfigure;

import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.RecordingSleeper;
import dev.backoff.spring.EnableBackoff;
import dev.backoff.spring.aop.BackoffAnnotationBeanPostProcessor;
import dev.backoff.spring.operation.BackoffOperationSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.env.MockPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@code @EnableBackoff} beside Spring Boot: harmless where the auto-configuration runs (a
 * migrated {@code @EnableRetry} stays where it stood), the only runtime where it does not, and
 * the same rules and messages for bad settings either way.
 */
class EnableBackoffWithBootTests {

	private final ApplicationContextRunner boot = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class));

	@Test
	void inABootApplicationItAddsNothing() {
		this.boot.withUserConfiguration(Application.class)
			.withPropertyValues("backoff.policies.quotes.max-attempts=3")
			.run((context) -> {
				assertThat(context).hasSingleBean(BackoffAnnotationBeanPostProcessor.class);
				assertThat(context).hasSingleBean(BackoffOperationSource.class);
				// The auto-configuration's own: Boot's binding, not @EnableBackoff's.
				assertThat(context).hasSingleBean(BackoffProperties.class);
				Quotes quotes = context.getBean(Quotes.class);
				assertThatIllegalStateException().isThrownBy(quotes::down);
				// Two advisors would retry each of three attempts three times: nine.
				assertThat(quotes.calls()).isEqualTo(3);
			});
	}

	@Test
	void withoutTheAutoConfigurationItIsTheRuntime() {
		new ApplicationContextRunner().withUserConfiguration(Application.class)
			.withPropertyValues("backoff.policies.quotes.max-attempts=3")
			.run((context) -> {
				assertThat(context).hasSingleBean(BackoffOperationSource.class);
				assertThat(context).doesNotHaveBean(BackoffProperties.class);
				Quotes quotes = context.getBean(Quotes.class);
				assertThatIllegalStateException().isThrownBy(quotes::down);
				assertThat(quotes.calls()).isEqualTo(3);
			});
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "backoff.policies.quotes.max-attempts | 0",
			"backoff.policies.quotes.base-delay | 2 seconds", "backoff.defaults.jitter | fulll",
			"backoff.policies.quotes.max-atempts | 3", "backoff.defaults.max-attempts | 2.5",
			"backoff.policies.quotes.multiplier | 0.5", "backoff.enabled | yes",
			"backoff.policies.quotes.retry-non-idempotent | yes", "backoff.defaults.budget.enabled | on",
			"backoff.policies.quotes.retry-non-idempotent | 1", "backoff.defaults.max-elapsed | -" })
	void aBadSettingIsReportedInTheSameWordsWithAndWithoutBoot(String property, String value) {
		FailureAnalysis underBoot = analyze(bootFailure(property, value));
		FailureAnalysis plain = analyze(plainFailure(property, value));
		assertThat(underBoot).isNotNull();
		assertThat(underBoot.getDescription()).contains("Property: " + property);
		assertThat(plain).isNotNull();
		assertThat(plain.getDescription()).isEqualTo(underBoot.getDescription());
		assertThat(plain.getAction()).isEqualTo(underBoot.getAction());
	}

	private Throwable bootFailure(String property, String value) {
		Throwable[] failure = new Throwable[1];
		this.boot.withUserConfiguration(Application.class)
			.withPropertyValues("backoff.policies.quotes.max-attempts=3", property + "=" + value)
			.run((context) -> failure[0] = context.getStartupFailure());
		return failure[0];
	}

	private static Throwable plainFailure(String property, String value) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getEnvironment()
			.getPropertySources()
			.addFirst(new MockPropertySource().withProperty("backoff.policies.quotes.max-attempts", "3")
				.withProperty(property, value));
		context.register(Application.class);
		Throwable failure = catchThrowable(context::refresh);
		context.close();
		return failure;
	}

	private static FailureAnalysis analyze(Throwable failure) {
		assertThat(failure).isNotNull();
		return new BackoffFailureAnalyzer().analyze(failure);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableBackoff
	static class Application {

		@Bean
		RecordingSleeper sleeper() {
			return new RecordingSleeper();
		}

		@Bean
		Quotes quotes() {
			return new Quotes();
		}

	}

	static class Quotes {

		private final AtomicInteger calls = new AtomicInteger();

		@Backoff("quotes")
		public String down() {
			this.calls.incrementAndGet();
			throw new IllegalStateException("down");
		}

		public int calls() {
			return this.calls.get();
		}

	}

}
