package dev.backoff.rewrite;

import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.spring.EnableBackoff;
import dev.backoff.spring.config.BackoffConfigurationException;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.env.MockPropertySource;
import org.springframework.retry.annotation.Backoff;
import org.springframework.retry.annotation.EnableRetry;
import org.springframework.retry.annotation.Retryable;
import org.springframework.retry.backoff.Sleeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * When Spring Retry 2.0 evaluates an {@code …Expression}, as docs/migrating.md's expression rows
 * say, against when Backoff reads the attribute the recipe carries: Spring Retry builds a
 * method's retry policy at its first call, evaluates a {@code #{…}} template then, once, and
 * evaluates any other expression, a {@code ${…}} placeholder's value included, again for every
 * retry; Backoff reads its attributes once, at start-up.
 */
class SpringRetryExpressionTimingTests {

	@Test
	void springRetryEvaluatesAPlaceholdersValueAsAnExpressionOnEveryRetry() {
		try (AnnotationConfigApplicationContext context = context(SpringRetryApplication.class, "@settings.attempts")) {
			Quotes quotes = context.getBean(Quotes.class);
			Settings settings = context.getBean(Settings.class);
			settings.setAttempts(3);
			assertThatIllegalStateException().isThrownBy(() -> quotes.fetch(0));
			assertThat(quotes.takeCalls()).isEqualTo(3);
			// Read again before each retry, not once.
			assertThat(settings.takeReads()).isGreaterThanOrEqualTo(3);
			settings.setAttempts(2);
			assertThatIllegalStateException().isThrownBy(() -> quotes.fetch(0));
			assertThat(quotes.takeCalls()).isEqualTo(2);
		}
	}

	@Test
	void backoffRefusesAPlaceholderWhoseValueIsAnExpressionAtStartUp() {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getEnvironment().getPropertySources().addFirst(new MockPropertySource().withProperty("quotes.attempts", "@settings.attempts"));
		context.register(BackoffApplication.class);
		Throwable failure = catchThrowable(context::refresh);
		context.close();
		while (failure != null && !(failure instanceof BackoffConfigurationException)) {
			failure = failure.getCause();
		}
		assertThat(failure).hasMessageStartingWith("@Backoff(maxAttempts) on MigratedQuotes.fetch was '@settings.attempts', but must be a whole number");
	}

	@Test
	void aPlaceholderHoldingANumberIsTheSameNumberInBoth() {
		try (AnnotationConfigApplicationContext retry = context(SpringRetryApplication.class, "3");
				AnnotationConfigApplicationContext backoff = context(BackoffApplication.class, "3")) {
			Quotes quotes = retry.getBean(Quotes.class);
			assertThatIllegalStateException().isThrownBy(() -> quotes.fetch(9));
			MigratedQuotes migrated = backoff.getBean(MigratedQuotes.class);
			assertThatIllegalStateException().isThrownBy(() -> migrated.fetch(9));
			assertThat(quotes.takeCalls()).isEqualTo(migrated.takeCalls()).isEqualTo(3);
		}
	}

	@Test
	void springRetryEvaluatesABeanExpressionOnceAtTheMethodsFirstCallBackoffAtStartUp() {
		try (AnnotationConfigApplicationContext retry = context(SpringRetryApplication.class, "3");
				AnnotationConfigApplicationContext backoff = context(BackoffApplication.class, "3")) {
			retry.getBean(Settings.class).setAttempts(4);
			backoff.getBean(Settings.class).setAttempts(4);
			Quotes quotes = retry.getBean(Quotes.class);
			MigratedQuotes migrated = backoff.getBean(MigratedQuotes.class);
			assertThatIllegalStateException().isThrownBy(quotes::fetchBySettings);
			assertThatIllegalStateException().isThrownBy(migrated::fetchBySettings);
			// Spring Retry read 4 at the first call; Backoff read 2 when the context started.
			assertThat(quotes.takeCalls()).isEqualTo(4);
			assertThat(migrated.takeCalls()).isEqualTo(2);
			// Once: a later change reaches neither.
			retry.getBean(Settings.class).setAttempts(6);
			assertThatIllegalStateException().isThrownBy(quotes::fetchBySettings);
			assertThat(quotes.takeCalls()).isEqualTo(4);
		}
	}

	private static AnnotationConfigApplicationContext context(Class<?> application, String attempts) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getEnvironment().getPropertySources().addFirst(new MockPropertySource().withProperty("quotes.attempts", attempts));
		context.register(application);
		context.refresh();
		return context;
	}

	public static class Settings {

		private volatile int attempts = 2;

		private final AtomicInteger reads = new AtomicInteger();

		public int getAttempts() {
			this.reads.incrementAndGet();
			return this.attempts;
		}

		public void setAttempts(int attempts) {
			this.attempts = attempts;
		}

		int takeReads() {
			return this.reads.getAndSet(0);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableRetry
	static class SpringRetryApplication {

		@Bean
		Settings settings() {
			return new Settings();
		}

		@Bean
		Sleeper springRetrySleeper() {
			return (period) -> {
			};
		}

		@Bean
		Quotes quotes() {
			return new Quotes();
		}

	}

	public static class Quotes {

		final AtomicInteger calls = new AtomicInteger();

		/** Through the proxy: its own fields are not the bean's. */
		public int takeCalls() {
			return this.calls.getAndSet(0);
		}

		@Retryable(maxAttemptsExpression = "${quotes.attempts}", backoff = @Backoff(delay = 1))
		public String fetch(int attempts) {
			this.calls.incrementAndGet();
			throw new IllegalStateException("down");
		}

		@Retryable(maxAttemptsExpression = "#{@settings.attempts}", backoff = @Backoff(delay = 1))
		public String fetchBySettings() {
			this.calls.incrementAndGet();
			throw new IllegalStateException("down");
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableBackoff
	static class BackoffApplication {

		@Bean
		Settings settings() {
			return new Settings();
		}

		@Bean
		dev.backoff.Sleeper backoffSleeper() {
			return (delay) -> {
			};
		}

		@Bean
		MigratedQuotes migratedQuotes() {
			return new MigratedQuotes();
		}

	}

	/** {@link Quotes} as the recipe leaves it. */
	public static class MigratedQuotes {

		final AtomicInteger calls = new AtomicInteger();

		/** Through the proxy: its own fields are not the bean's. */
		public int takeCalls() {
			return this.calls.getAndSet(0);
		}

		@dev.backoff.Backoff(maxAttempts = "${quotes.attempts}", baseDelay = "1ms", multiplier = "1",
				jitter = dev.backoff.Jitter.NONE)
		public String fetch(int attempts) {
			this.calls.incrementAndGet();
			throw new IllegalStateException("down");
		}

		@dev.backoff.Backoff(maxAttempts = "#{@settings.attempts}", baseDelay = "1ms", multiplier = "1",
				jitter = dev.backoff.Jitter.NONE)
		public String fetchBySettings() {
			this.calls.incrementAndGet();
			throw new IllegalStateException("down");
		}

	}

}
