package dev.backoff.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.StringUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Tests for {@link BackoffFailureAnalyzer}: every kind of bad configuration stops start-up
 * with a report that names the property (or attribute), the value given and the rule, and
 * says what to do.
 */
@ExtendWith(OutputCaptureExtension.class)
class BackoffFailureAnalyzerTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class));

	@Test
	void reportsNegativeBaseDelay() {
		this.contextRunner.withPropertyValues("backoff.defaults.base-delay=-1s").run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertReport(analysis, "backoff.defaults.base-delay", "-1s", "must be zero or positive");
			assertThat(analysis.getAction()).contains("backoff.defaults.base-delay");
		});
	}

	@Test
	void reportsMultiplierBelowOne() {
		this.contextRunner.withPropertyValues("backoff.defaults.multiplier=0.5").run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertReport(analysis, "backoff.defaults.multiplier", "0.5", "must be a finite number of at least 1");
			assertThat(analysis.getAction()).contains("backoff.defaults.multiplier");
		});
	}

	@Test
	void reportsMultiplierBelowOneOfANamedPolicy() {
		this.contextRunner.withPropertyValues("backoff.policies.quotes.multiplier=0.5").run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertReport(analysis, "backoff.policies.quotes.multiplier", "0.5", "at least 1");
			assertThat(analysis.getAction()).contains("backoff.policies.quotes.multiplier");
		});
	}

	@Test
	void startUpPrintsTheReportTheConfigurationPageShows(CapturedOutput output) throws IOException {
		String page = Files.readString(Path.of("../docs/configuration.md"), StandardCharsets.UTF_8);
		int heading = page.indexOf("## Bad configuration stops start-up");
		int start = page.indexOf("```\n", heading) + 4;
		String report = page.substring(start, page.indexOf("```\n", start));
		assertThat(report).startsWith("***************************\nAPPLICATION FAILED TO START");
		assertThatException().isThrownBy(() -> new SpringApplicationBuilder(ReportedApplication.class)
			.web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.run("--backoff.policies.quotes.multiplier=0.5"));
		assertThat(output.getAll().replace(System.lineSeparator(), "\n")).contains(report);
	}

	@Test
	void reportsMaxDelayBelowBaseDelay() {
		this.contextRunner.withPropertyValues("backoff.defaults.base-delay=2s", "backoff.defaults.max-delay=1s")
			.run((context) -> {
				FailureAnalysis analysis = analyze(context);
				assertReport(analysis, "backoff.defaults.max-delay", "1s", "must be at least base-delay (2s)");
				assertThat(analysis.getAction()).contains("backoff.defaults.max-delay");
			});
	}

	@Test
	void reportsThePolicysBaseDelayWhenItRaisesItAboveTheInheritedMaxDelay() {
		// The policy sets base-delay and inherits max-delay: the report names what the policy set.
		this.contextRunner.withPropertyValues("backoff.defaults.max-delay=1s", "backoff.policies.quotes.base-delay=2s")
			.run((context) -> {
				FailureAnalysis analysis = analyze(context);
				assertReport(analysis, "backoff.policies.quotes.base-delay", "2s", "must be at most max-delay (1s)");
				assertThat(analysis.getAction()).contains("backoff.policies.quotes.max-delay");
			});
	}

	@Test
	void reportsTheNamedPolicyMaxDelayWhenItIsBelowTheInheritedBaseDelay() {
		this.contextRunner
			.withPropertyValues("backoff.defaults.base-delay=200ms", "backoff.policies.quotes.max-delay=50ms")
			.run((context) -> assertReport(analyze(context), "backoff.policies.quotes.max-delay", "50ms",
					"must be at least base-delay (200ms)"));
	}

	@Test
	void reportsTheNamedPolicyBaseDelayWhenNeitherSetsMaxDelay() {
		// Only base-delay was given: it is what to fix, against the built-in max-delay (20s).
		this.contextRunner.withPropertyValues("backoff.policies.quotes.base-delay=30s")
			.run((context) -> assertReport(analyze(context), "backoff.policies.quotes.base-delay", "30s",
					"must be at most max-delay (20s)"));
	}

	@Test
	void reportsAspectjModeWithoutBackoffAspectj() {
		this.contextRunner.withPropertyValues("backoff.mode=aspectj").run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertReport(analysis, "backoff.mode", "aspectj",
					"needs dev.backoff:backoff-aspectj on the class path, and it is missing");
			assertThat(analysis.getAction()).contains("backoff.mode=proxy");
		});
	}

	@Test
	void reportsMaxAttemptsBelowOne() {
		this.contextRunner.withPropertyValues("backoff.policies.quotes.max-attempts=0").run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertReport(analysis, "backoff.policies.quotes.max-attempts", "0", "must be at least 1");
			assertThat(analysis.getAction()).contains("backoff.policies.quotes.max-attempts");
		});
	}

	@Test
	void reportsNonPositiveMaxElapsed() {
		this.contextRunner.withPropertyValues("backoff.defaults.max-elapsed=0s")
			.run((context) -> assertReport(analyze(context), "backoff.defaults.max-elapsed", "0ms",
					"must be positive"));
	}

	@Test
	void reportsUnknownJitter() {
		this.contextRunner.withPropertyValues("backoff.defaults.jitter=gaussian").run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertReport(analysis, "backoff.defaults.jitter", "gaussian",
					"must be one of none, full, equal, decorrelated");
			assertThat(analysis.getAction()).contains("backoff.defaults.jitter");
		});
	}

	@Test
	void reportsUnknownJitterOfANamedPolicy() {
		this.contextRunner.withPropertyValues("backoff.policies.quotes.jitter=gaussian")
			.run((context) -> assertReport(analyze(context), "backoff.policies.quotes.jitter", "gaussian",
					"must be one of none, full, equal, decorrelated"));
	}

	@Test
	void reportsUnknownNestedValue() {
		this.contextRunner.withPropertyValues("backoff.nested=innermost")
			.run((context) -> assertReport(analyze(context), "backoff.nested", "innermost",
					"must be one of outermost, independent"));
	}

	@Test
	void reportsABudgetBelowOneToken() {
		this.contextRunner.withPropertyValues("backoff.policies.quotes.budget.max-tokens=0.5")
			.run((context) -> assertReport(analyze(context), "backoff.policies.quotes.budget.max-tokens", "0.5",
					"must be at least 1 and at most 1000000"));
	}

	@Test
	void reportsATokenRatioAboveMaxTokensInTheYamlsWords() {
		this.contextRunner
			.withPropertyValues("backoff.defaults.budget.max-tokens=4", "backoff.policies.quotes.budget.token-ratio=5")
			.run((context) -> assertReport(analyze(context), "backoff.policies.quotes.budget.token-ratio", "5.0",
					"must be at least 0.001 (tokens are kept to three decimals) and at most budget.max-tokens (4.0)"));
	}

	@Test
	void reportsAThrottleBaseDelayBelowTheBaseDelayInTheYamlsWords() {
		this.contextRunner
			.withPropertyValues("backoff.defaults.base-delay=200ms", "backoff.policies.quotes.throttle-base-delay=100ms")
			.run((context) -> assertReport(analyze(context), "backoff.policies.quotes.throttle-base-delay", "100ms",
					"must be at least base-delay (200ms): a retry after throttling waits longer than another"));
	}

	@Test
	void reportsAThrottleMaxDelayWithoutAThrottleBaseDelay() {
		this.contextRunner.withPropertyValues("backoff.policies.quotes.throttle-max-delay=30s")
			.run((context) -> assertReport(analyze(context), "backoff.policies.quotes.throttle-max-delay", "30s",
					"needs throttle-base-delay to be set too"));
	}

	@Test
	void reportsAThrottleMaxDelayBelowTheMaxDelay() {
		this.contextRunner
			.withPropertyValues("backoff.policies.quotes.max-delay=10s", "backoff.policies.quotes.throttle-base-delay=1s",
					"backoff.policies.quotes.throttle-max-delay=5s")
			.run((context) -> assertReport(analyze(context), "backoff.policies.quotes.throttle-max-delay", "5s",
					"must be at least max-delay (10s)"));
	}

	@Test
	void reportsAThrottleOnTypeThatRetryOnDoesNotCover() {
		this.contextRunner
			.withPropertyValues("backoff.policies.quotes.retry-on=java.io.IOException",
					"backoff.policies.quotes.throttle-on=java.lang.IllegalStateException")
			.run((context) -> assertReport(analyze(context), "backoff.policies.quotes.throttle-on",
					"java.lang.IllegalStateException",
					"must name a subtype of a type that retry-on names (java.io.IOException)"));
	}

	@Test
	void reportsAThrottleCostAboveOne() {
		this.contextRunner.withPropertyValues("backoff.policies.quotes.budget.throttle-cost=2")
			.run((context) -> assertReport(analyze(context), "backoff.policies.quotes.budget.throttle-cost", "2.0",
					"must be at least 0.001 (tokens are kept to three decimals) and at most 1"));
	}

	@Test
	void reportsAMalformedTokenRatio() {
		this.contextRunner.withPropertyValues("backoff.defaults.budget.token-ratio=lots")
			.run((context) -> assertThat(analyze(context).getDescription())
				.contains("backoff.defaults.budget.token-ratio")
				.contains("lots"));
	}

	@Test
	void reportsMalformedDuration() {
		this.contextRunner.withPropertyValues("backoff.defaults.base-delay=soon").run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertReport(analysis, "backoff.defaults.base-delay", "soon", "must be a duration such as 250ms");
			assertThat(analysis.getAction()).contains("backoff.defaults.base-delay");
		});
	}

	@Test
	void reportsMalformedMaxAttempts() {
		this.contextRunner.withPropertyValues("backoff.defaults.max-attempts=many")
			.run((context) -> assertReport(analyze(context), "backoff.defaults.max-attempts", "many",
					"must be a whole number"));
	}

	@Test
	void reportsUnknownExceptionClass() {
		this.contextRunner.withPropertyValues("backoff.defaults.retry-on=com.example.NoSuchException")
			.run((context) -> {
				FailureAnalysis analysis = analyze(context);
				assertReport(analysis, "backoff.defaults.retry-on", "com.example.NoSuchException",
						"must name a class on the class path");
				assertThat(analysis.getAction()).contains("fully qualified name");
			});
	}

	@Test
	void reportsUnknownExceptionClassOfANamedPolicyAbortOn() {
		this.contextRunner.withPropertyValues("backoff.policies.quotes.abort-on=java.io.IOException,NoSuch")
			.run((context) -> assertReport(analyze(context), "backoff.policies.quotes.abort-on", "NoSuch",
					"must name a class on the class path"));
	}

	@Test
	void reportsClassThatIsNotThrowable() {
		this.contextRunner.withPropertyValues("backoff.defaults.retry-on=java.lang.String").run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertReport(analysis, "backoff.defaults.retry-on", "java.lang.String", "must name a Throwable type");
			assertThat(analysis.getAction()).contains("exception type");
		});
	}

	@Test
	void reportsClassInBothRetryOnAndAbortOn() {
		this.contextRunner
			.withPropertyValues("backoff.defaults.retry-on=java.io.IOException",
					"backoff.defaults.abort-on=java.io.IOException")
			.run((context) -> {
				FailureAnalysis analysis = analyze(context);
				assertReport(analysis, "backoff.defaults.abort-on", "java.io.IOException",
						"must not name a type that retry-on names too");
				assertThat(analysis.getAction()).contains("backoff.defaults.abort-on");
			});
	}

	@Test
	void reportsPolicyNamedDefaults() {
		this.contextRunner.withPropertyValues("backoff.policies.defaults.max-attempts=2").run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertReport(analysis, "backoff.policies.defaults", "defaults", "reserved for backoff.defaults");
			assertThat(analysis.getAction()).contains("Rename the policy");
		});
	}

	@Test
	void reportsAnnotationNamingAnUnknownPolicy() {
		this.contextRunner
			.withPropertyValues("backoff.policies.quotes.max-attempts=2", "backoff.policies.orders.max-attempts=3")
			.withBean(UnknownPolicy.class)
			.run((context) -> {
				FailureAnalysis analysis = analyze(context);
				assertReport(analysis, "@Backoff(value) on UnknownPolicy.call", "missing",
						"must name a policy under backoff.policies (configured: quotes, orders)");
				assertThat(analysis.getAction()).contains("backoff.policies.missing");
				assertThat(analysis.getAction()).doesNotContain("Did you mean");
			});
	}

	@Test
	void reportsAnnotationNamingAMistypedPolicyWithTheNearest() {
		this.contextRunner
			.withPropertyValues("backoff.policies.quotes.max-attempts=2", "backoff.policies.orders.max-attempts=3")
			.withBean(MistypedPolicy.class)
			.run((context) -> {
				FailureAnalysis analysis = analyze(context);
				assertReport(analysis, "@Backoff(value) on MistypedPolicy.call", "quots",
						"must name a policy under backoff.policies (configured: quotes, orders)");
				assertThat(analysis.getAction()).isEqualTo("Did you mean 'quotes'? Add backoff.policies.quots to the "
						+ "configuration, or name one of quotes, orders.");
			});
	}

	@Test
	void reportsUnknownPolicyUnderThePolicyAttributeWhenNamedThere() {
		this.contextRunner.withBean(UnknownPolicyAttribute.class)
			.run((context) -> assertReport(analyze(context), "@Backoff(policy) on UnknownPolicyAttribute.call",
					"missing", "must name a policy under backoff.policies"));
	}

	@Test
	void reportsValueAndPolicyThatDisagree() {
		this.contextRunner
			.withPropertyValues("backoff.policies.quotes.max-attempts=2", "backoff.policies.orders.max-attempts=3")
			.withBean(ConflictingNames.class)
			.run((context) -> {
				FailureAnalysis analysis = analyze(context);
				assertReport(analysis, "@Backoff(policy) on ConflictingNames.call", "orders",
						"must be the same as value ('quotes')");
				assertThat(analysis.getAction()).contains("only one of value and policy");
			});
	}

	@Test
	void reportsMalformedMaxAttemptsAttribute() {
		this.contextRunner.withBean(BadMaxAttempts.class).run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertReport(analysis, "@Backoff(maxAttempts) on BadMaxAttempts.call", "abc",
					"must be a whole number such as 3");
			assertThat(analysis.getAction()).contains("maxAttempts");
		});
	}

	@Test
	void reportsMaxAttemptsAttributeBelowOne() {
		this.contextRunner.withBean(ZeroMaxAttempts.class)
			.run((context) -> assertReport(analyze(context), "@Backoff(maxAttempts) on ZeroMaxAttempts.call", "0",
					"must be at least 1"));
	}

	@Test
	void reportsNegativeBaseDelayAttribute() {
		this.contextRunner.withBean(NegativeBaseDelay.class).run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertReport(analysis, "@Backoff(baseDelay) on NegativeBaseDelay.call", "-1s", "must be zero or positive");
			assertThat(analysis.getAction()).contains("baseDelay").contains("backoff.defaults");
		});
	}

	@Test
	void reportsMalformedDurationAttribute() {
		this.contextRunner.withBean(MalformedMaxDelay.class)
			.run((context) -> assertReport(analyze(context), "@Backoff(maxDelay) on MalformedMaxDelay.call", "later",
					"must be a duration such as 5s"));
	}

	@Test
	void reportsMalformedMultiplierAttribute() {
		this.contextRunner.withBean(MalformedMultiplier.class)
			.run((context) -> assertReport(analyze(context), "@Backoff(multiplier) on MalformedMultiplier.call",
					"double", "must be a number such as 2.0"));
	}

	@Test
	void reportsMoreThanOneJitterAttribute() {
		this.contextRunner.withBean(TwoJitters.class)
			.run((context) -> assertReport(analyze(context), "@Backoff(jitter) on TwoJitters.call", "[FULL, EQUAL]",
					"must hold at most one value"));
	}

	@Test
	void reportsRetryIfThatDoesNotParse() {
		this.contextRunner.withBean(BadRetryIf.class).run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertReport(analysis, "@Backoff(retryIf) on BadRetryIf.call", "#result.status ==",
					"must be a SpEL expression");
			assertThat(analysis.getAction()).contains("#result");
		});
	}

	@Test
	void reportsRetryIfOnAVoidMethod() {
		this.contextRunner.withBean(VoidRetryIf.class)
			.run((context) -> assertReport(analyze(context), "@Backoff(retryIf) on VoidRetryIf.call", "#result == null",
					"needs a method that returns one value"));
	}

	@Test
	void reportsFallbackThatDoesNotExist() {
		this.contextRunner.withBean(MissingFallback.class).run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertReport(analysis, "@Backoff(fallback) on MissingFallback.call", "recover",
					"(no method has that name)");
			assertThat(analysis.getAction()).contains("String recover(String, Throwable failure)");
		});
	}

	@Test
	void reportsFallbackWithTheWrongParameters() {
		this.contextRunner.withBean(WrongFallbackParameters.class).run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertReport(analysis, "@Backoff(fallback) on WrongFallbackParameters.call", "recover",
					"takes the same parameters");
			assertThat(analysis.getDescription()).contains("found:").contains("recover(int)");
		});
	}

	@Test
	void reportsFallbackWithTheWrongReturnType() {
		this.contextRunner.withBean(WrongFallbackReturnType.class)
			.run((context) -> assertReport(analyze(context), "@Backoff(fallback) on WrongFallbackReturnType.call",
					"recover", "returns String"));
	}

	@Test
	void reportsUnsupportedReturnType() {
		this.contextRunner.withBean(FutureReturnType.class).run((context) -> {
			FailureAnalysis analysis = analyze(context);
			assertReport(analysis, "return type on FutureReturnType.call", "java.util.concurrent.Future",
					"cannot be retried without blocking a thread");
			assertThat(analysis.getAction()).contains("CompletableFuture");
		});
	}

	@Test
	void reportsUnsupportedCompletionStageSubtype() {
		this.contextRunner.withBean(CustomFutureReturnType.class)
			.run((context) -> assertReport(analyze(context), "return type on CustomFutureReturnType.call",
					CustomFuture.class.getName(), "cannot be retried"));
	}

	@Test
	void ignoresFailuresThatAreNotAboutBackoff() {
		assertThat(new BackoffFailureAnalyzer().analyze(new IllegalStateException("unrelated"))).isNull();
	}

	@Test
	void ignoresBindFailuresOutsideBackoff() {
		this.contextRunner.withUserConfiguration(OtherPropertiesConfiguration.class)
			.withPropertyValues("other.timeout=soon")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(new BackoffFailureAnalyzer().analyze(context.getStartupFailure())).isNull();
			});
	}

	@Test
	void isRegisteredAsAFailureAnalyzer() throws IOException {
		URL classes = BackoffFailureAnalyzer.class.getProtectionDomain().getCodeSource().getLocation();
		Properties factories = new Properties();
		try (InputStream in = new URL(classes, "META-INF/spring.factories").openStream()) {
			factories.load(in);
		}
		assertThat(StringUtils.commaDelimitedListToSet(factories.getProperty(FailureAnalyzer.class.getName())))
			.contains(BackoffFailureAnalyzer.class.getName());
	}

	@Test
	void reportsARecordWithBackoff() {
		this.contextRunner.withBean(FinalQuote.class, () -> new FinalQuote("q")).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("Property: @Backoff on " + FinalQuote.class.getName())
				.contains("needs a proxy, but the class is final (a record)");
		});
	}

	@Test
	void reportsAnUnresolvedPlaceholder() {
		this.contextRunner.withBean(Placeholder.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("Property: @Backoff(maxAttempts) on Placeholder.fetch")
				.contains("Value:    ${quotes.attempts}")
				.contains("must only use placeholders that resolve");
		});
	}

	@Test
	void reportsARetryOnThatAbortOnCovers() {
		this.contextRunner
			.withPropertyValues("backoff.policies.quotes.retry-on=java.io.IOException",
					"backoff.policies.quotes.abort-on=java.lang.Exception")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("Property: backoff.policies.quotes.retry-on")
					.contains("must not name a subtype of java.lang.Exception, which abort-on names: it could never "
							+ "be retried");
			});
	}

	private static FailureAnalysis analyze(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
		assertThat(analysis).as("analysis of %s", context.getStartupFailure()).isNotNull();
		assertThat(analysis.getAction()).isNotBlank();
		return analysis;
	}

	private static void assertReport(FailureAnalysis analysis, String property, String value, String rule) {
		assertThat(analysis.getDescription()).startsWith("Invalid Backoff configuration")
			.contains("Property: " + property + System.lineSeparator())
			.contains("Value:    " + value + System.lineSeparator())
			.contains("Rule:     ")
			.contains(rule);
	}

	static class UnknownPolicy {

		@Backoff("missing")
		public String call() {
			return "ok";
		}

	}

	static class MistypedPolicy {

		@Backoff("quots")
		public String call() {
			return "ok";
		}

	}

	static class UnknownPolicyAttribute {

		@Backoff(policy = "missing")
		public String call() {
			return "ok";
		}

	}

	static class ConflictingNames {

		@Backoff(value = "quotes", policy = "orders")
		public String call() {
			return "ok";
		}

	}

	static class BadMaxAttempts {

		@Backoff(maxAttempts = "abc")
		public String call() {
			return "ok";
		}

	}

	static class ZeroMaxAttempts {

		@Backoff(maxAttempts = "0")
		public String call() {
			return "ok";
		}

	}

	static class NegativeBaseDelay {

		@Backoff(baseDelay = "-1s")
		public String call() {
			return "ok";
		}

	}

	static class MalformedMaxDelay {

		@Backoff(maxDelay = "later")
		public String call() {
			return "ok";
		}

	}

	static class MalformedMultiplier {

		@Backoff(multiplier = "double")
		public String call() {
			return "ok";
		}

	}

	static class TwoJitters {

		@Backoff(jitter = { Jitter.FULL, Jitter.EQUAL })
		public String call() {
			return "ok";
		}

	}

	static class BadRetryIf {

		@Backoff(retryIf = "#result.status ==")
		public String call() {
			return "ok";
		}

	}

	static class VoidRetryIf {

		@Backoff(retryIf = "#result == null")
		public void call() {
		}

	}

	static class MissingFallback {

		@Backoff(fallback = "recover")
		public String call(String id) {
			return id;
		}

	}

	static class WrongFallbackParameters {

		@Backoff(fallback = "recover")
		public String call(String id) {
			return id;
		}

		String recover(int id) {
			return "fallback";
		}

	}

	static class WrongFallbackReturnType {

		@Backoff(fallback = "recover")
		public String call(String id) {
			return id;
		}

		Integer recover(String id) {
			return 0;
		}

	}

	static class FutureReturnType {

		@Backoff
		public Future<String> call() {
			return CompletableFuture.completedFuture("ok");
		}

	}

	static class CustomFutureReturnType {

		@Backoff
		public CustomFuture call() {
			return new CustomFuture();
		}

	}

	static class CustomFuture extends CompletableFuture<String> {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(OtherProperties.class)
	static class OtherPropertiesConfiguration {

	}

	@ConfigurationProperties("other")
	static class OtherProperties {

		private Duration timeout;

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	/** An application as a user's, with one bad setting given on the command line. */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(BackoffAutoConfiguration.class)
	static class ReportedApplication {

	}

	@Backoff
	record FinalQuote(String id) {

		public String fetch() {
			return this.id;
		}

	}

	static class Placeholder {

		@Backoff(maxAttempts = "${quotes.attempts}")
		public String fetch() {
			return "quote";
		}

	}

}
