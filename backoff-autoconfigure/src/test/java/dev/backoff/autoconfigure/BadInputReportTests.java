package dev.backoff.autoconfigure;

import java.io.IOException;
import java.time.Duration;

import dev.backoff.Backoff;
import dev.backoff.BackoffPolicy;
import dev.backoff.InvalidPolicyException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Bad input that {@code BackoffPolicyValidationTests} and
 * {@code BackoffFailureAnalyzerTests} do not try yet: non-finite and absurd values in YAML, in
 * annotation attributes and in builder calls. Each fails fast, and start-up failures are
 * reported by the {@link BackoffFailureAnalyzer} with the property (or attribute) and the rule.
 */
class BadInputReportTests {

	private static final String MULTIPLIER_RULE = "must be a finite number of at least 1";

	private static final String LONGEST_DURATION_RULE = "must be at most";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class));

	@Test
	void rejectsNanMultiplierInYaml() {
		this.runner.withPropertyValues("backoff.defaults.multiplier=NaN")
			.run((context) -> assertReport(context, "backoff.defaults.multiplier", "NaN", MULTIPLIER_RULE));
	}

	@Test
	void rejectsInfiniteMultiplierInYaml() {
		this.runner.withPropertyValues("backoff.policies.quotes.multiplier=Infinity")
			.run((context) -> assertReport(context, "backoff.policies.quotes.multiplier", "Infinity", MULTIPLIER_RULE));
	}

	@Test
	void rejectsMalformedMultiplierInYaml() {
		this.runner.withPropertyValues("backoff.defaults.multiplier=twice")
			.run((context) -> assertReport(context, "backoff.defaults.multiplier", "twice", "must be a number"));
	}

	@Test
	void rejectsAbsurdMaxDelayInYaml() {
		this.runner.withPropertyValues("backoff.defaults.max-delay=1000000d")
			.run((context) -> assertReport(context, "backoff.defaults.max-delay", null, LONGEST_DURATION_RULE));
	}

	@Test
	void rejectsAbsurdMaxElapsedInYaml() {
		this.runner.withPropertyValues("backoff.policies.quotes.max-elapsed=1000000d")
			.run((context) -> assertReport(context, "backoff.policies.quotes.max-elapsed", null, LONGEST_DURATION_RULE));
	}

	@Test
	void rejectsNegativeMaxDelayInYaml() {
		this.runner.withPropertyValues("backoff.defaults.max-delay=-5s")
			.run((context) -> assertReport(context, "backoff.defaults.max-delay", "-5s", "must be zero or positive"));
	}

	@Test
	void rejectsNegativeMaxAttemptsInYaml() {
		this.runner.withPropertyValues("backoff.defaults.max-attempts=-1")
			.run((context) -> assertReport(context, "backoff.defaults.max-attempts", "-1", "must be at least 1"));
	}

	@Test
	void rejectsNegativeMaxElapsedInYaml() {
		this.runner.withPropertyValues("backoff.policies.quotes.max-elapsed=-1s")
			.run((context) -> assertReport(context, "backoff.policies.quotes.max-elapsed", "-1s", "must be positive"));
	}

	@Test
	void rejectsNonThrowableClassInAbortOnInYaml() {
		this.runner.withPropertyValues("backoff.policies.quotes.abort-on=java.lang.Integer")
			.run((context) -> assertReport(context, "backoff.policies.quotes.abort-on", "java.lang.Integer",
					"must name a Throwable type"));
	}

	@Test
	void rejectsNanMultiplierAttribute() {
		this.runner.withBean(NanMultiplier.class)
			.run((context) -> assertReport(context, "@Backoff(multiplier) on NanMultiplier.call", "NaN",
					MULTIPLIER_RULE));
	}

	@Test
	void rejectsInfiniteMultiplierAttribute() {
		this.runner.withBean(InfiniteMultiplier.class)
			.run((context) -> assertReport(context, "@Backoff(multiplier) on InfiniteMultiplier.call", "Infinity",
					MULTIPLIER_RULE));
	}

	@Test
	void rejectsMultiplierAttributeBelowOne() {
		this.runner.withBean(HalfMultiplier.class)
			.run((context) -> assertReport(context, "@Backoff(multiplier) on HalfMultiplier.call", "0.5",
					MULTIPLIER_RULE));
	}

	@Test
	void rejectsAbsurdBaseDelayAttribute() {
		this.runner.withBean(AbsurdBaseDelay.class)
			.run((context) -> assertReport(context, "@Backoff(baseDelay) on AbsurdBaseDelay.call", null,
					LONGEST_DURATION_RULE));
	}

	@Test
	void rejectsNegativeMaxAttemptsAttribute() {
		this.runner.withBean(NegativeMaxAttempts.class)
			.run((context) -> assertReport(context, "@Backoff(maxAttempts) on NegativeMaxAttempts.call", "-1",
					"must be at least 1"));
	}

	@Test
	void rejectsZeroMaxElapsedAttribute() {
		this.runner.withBean(ZeroMaxElapsed.class)
			.run((context) -> assertReport(context, "@Backoff(maxElapsed) on ZeroMaxElapsed.call", "0ms",
					"must be positive"));
	}

	@Test
	void rejectsMaxDelayAttributeBelowBaseDelayAttribute() {
		this.runner.withBean(InvertedDelays.class)
			.run((context) -> assertReport(context, "@Backoff(maxDelay) on InvertedDelays.call", "1s",
					"must be at least baseDelay"));
	}

	@Test
	void rejectsClassInBothRetryOnAndAbortOnAttributes() {
		this.runner.withBean(RetryAndAbort.class)
			.run((context) -> assertReport(context, "@Backoff(abortOn) on RetryAndAbort.call", "java.io.IOException",
					"must not name a type that retryOn names too"));
	}

	@Test
	void rejectsAttributeThatOverridesAValidYamlPolicyWithAnInvalidValue() {
		this.runner.withPropertyValues("backoff.policies.quotes.max-attempts=4")
			.withBean(NamedPolicyInvertedDelays.class)
			.run((context) -> {
				FailureAnalysis analysis = assertReport(context,
						"@Backoff(maxDelay) on NamedPolicyInvertedDelays.call", null, "must be at least baseDelay");
				assertThat(analysis.getAction()).contains("backoff.policies.quotes");
			});
	}

	@Test
	void rejectsNegativeInfiniteMultiplierInTheBuilder() {
		assertRejected(BackoffPolicy.builder().multiplier(Double.NEGATIVE_INFINITY), "multiplier", MULTIPLIER_RULE);
	}

	@Test
	void rejectsZeroMultiplierInTheBuilder() {
		assertRejected(BackoffPolicy.builder().multiplier(0.0), "multiplier", MULTIPLIER_RULE);
	}

	@Test
	void rejectsNegativeMultiplierInTheBuilder() {
		assertRejected(BackoffPolicy.builder().multiplier(-2.0), "multiplier", MULTIPLIER_RULE);
	}

	@Test
	void rejectsTheSmallestIntAsMaxAttemptsInTheBuilder() {
		assertRejected(BackoffPolicy.builder().maxAttempts(Integer.MIN_VALUE), "maxAttempts", "must be at least 1");
	}

	@Test
	void rejectsAbsurdBaseDelayInTheBuilderEvenBelowAnAbsurdMaxDelay() {
		Duration absurd = Duration.ofDays(1_000_000);
		assertRejected(BackoffPolicy.builder().baseDelay(absurd).maxDelay(absurd.multipliedBy(2)), "baseDelay",
				LONGEST_DURATION_RULE);
	}

	@Test
	void rejectsTheMostNegativeDurationInTheBuilder() {
		assertRejected(BackoffPolicy.builder().baseDelay(Duration.ofSeconds(Long.MIN_VALUE)), "baseDelay",
				"must be zero or positive");
	}

	private static FailureAnalysis assertReport(AssertableApplicationContext context, String property,
			String value, String rule) {
		assertThat(context).hasFailed();
		FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
		assertThat(analysis).as("analysis of %s", context.getStartupFailure()).isNotNull();
		assertThat(analysis.getDescription()).startsWith("Invalid Backoff configuration")
			.contains("Property: " + property + System.lineSeparator())
			.contains("Rule:     ")
			.contains(rule);
		if (value != null) {
			assertThat(analysis.getDescription()).contains("Value:    " + value + System.lineSeparator());
		}
		assertThat(analysis.getAction()).isNotBlank();
		return analysis;
	}

	private static void assertRejected(BackoffPolicy.Builder builder, String setting, String rule) {
		InvalidPolicyException ex = catchThrowableOfType(InvalidPolicyException.class, builder::build);
		assertThat(ex).as("the exception thrown by build()").isNotNull();
		assertThat(ex.getSetting()).isEqualTo(setting);
		assertThat(ex.getRule()).startsWith(rule);
		assertThat(ex).hasMessageStartingWith(setting + " was ");
	}

	static class NanMultiplier {

		@Backoff(multiplier = "NaN")
		public String call() {
			return "ok";
		}

	}

	static class InfiniteMultiplier {

		@Backoff(multiplier = "Infinity")
		public String call() {
			return "ok";
		}

	}

	static class HalfMultiplier {

		@Backoff(multiplier = "0.5")
		public String call() {
			return "ok";
		}

	}

	static class AbsurdBaseDelay {

		@Backoff(baseDelay = "1000000d")
		public String call() {
			return "ok";
		}

	}

	static class NegativeMaxAttempts {

		@Backoff(maxAttempts = "-1")
		public String call() {
			return "ok";
		}

	}

	static class ZeroMaxElapsed {

		@Backoff(maxElapsed = "0s")
		public String call() {
			return "ok";
		}

	}

	static class InvertedDelays {

		@Backoff(baseDelay = "2s", maxDelay = "1s")
		public String call() {
			return "ok";
		}

	}

	static class RetryAndAbort {

		@Backoff(retryOn = { IllegalStateException.class, IOException.class }, abortOn = IOException.class)
		public String call() throws IOException {
			return "ok";
		}

	}

	static class NamedPolicyInvertedDelays {

		@Backoff(value = "quotes", baseDelay = "1h", maxDelay = "1m")
		public String call() {
			return "ok";
		}

	}

}
