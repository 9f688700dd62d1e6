package dev.backoff.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import dev.backoff.Backoff;
import dev.backoff.spring.operation.BackoffOperationSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What Spring Boot's lenient binding would let through under {@code backoff.*}, rejected at
 * start-up with a report naming the property, the value and the rule: switches that are not
 * {@code true}/{@code false}, unknown keys at any level, a list where one value belongs, and a
 * fraction where a whole number belongs.
 */
class StrictConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class));

	@ParameterizedTest
	@ValueSource(strings = { "flase", "yes", "TRUE ", "1", "" })
	void rejectsAnEnabledSwitchThatIsNeitherTrueNorFalse(String value) {
		this.runner.withInitializer((context) -> context.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource("test", Map.of("backoff.enabled", value))))
			.run((context) -> assertReport(context, "backoff.enabled", "'" + value + "'", "must be true or false"));
	}

	@Test
	void rejectsAMetricsSwitchThatIsNeitherTrueNorFalse() {
		this.runner.withPropertyValues("backoff.metrics.enabled=off")
			.run((context) -> assertReport(context, "backoff.metrics.enabled", "'off'", "must be true or false"));
	}

	@Test
	void rejectsAFailuresAtZeroSwitchThatIsNeitherTrueNorFalse() {
		this.runner.withPropertyValues("backoff.metrics.failures-at-zero=yes")
			.run((context) -> assertReport(context, "backoff.metrics.failures-at-zero", "'yes'",
					"must be true or false"));
	}

	@Test
	void acceptsTrueAndFalseInAnyCase() {
		this.runner.withPropertyValues("backoff.enabled=TRUE")
			.run((context) -> assertThat(context).hasSingleBean(BackoffOperationSource.class));
		this.runner.withPropertyValues("backoff.enabled=False")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(BackoffOperationSource.class));
	}

	@Test
	void rejectsAnUnknownMode() {
		this.runner.withPropertyValues("backoff.mode=proxyy")
			.run((context) -> assertReport(context, "backoff.mode", "proxyy", "must be one of proxy, aspectj"));
	}

	@Test
	void rejectsAnUnknownKeyUnderAPolicy() {
		this.runner.withPropertyValues("backoff.policies.quotes.max-atempts=10")
			.run((context) -> assertReport(context, "backoff.policies.quotes.max-atempts", "10",
					"is not a Backoff setting"));
	}

	@Test
	void namesTheNearestSettingOfAnUnknownKey() {
		this.runner.withPropertyValues("backoff.policies.quotes.max-attemps=10").run((context) -> {
			assertReport(context, "backoff.policies.quotes.max-attemps", "10", "is not a Backoff setting");
			String action = analysis(context).getAction();
			assertThat(action)
				.isEqualTo("Did you mean backoff.policies.quotes.max-attempts? Correct the key's spelling, or remove it.");
			// As docs/configuration.md shows it.
			assertThat(Files.readString(Path.of("../docs/configuration.md"), StandardCharsets.UTF_8))
				.contains("`backoff.policies.quotes.max-attemps=10` gives:\n\n```\nAction:\n\n" + action + "\n```");
		});
		this.runner.withPropertyValues("backoff.polices.quotes.maxAttempts=3", "backoff.kafka.listners.prices=quotes")
			.run((context) -> assertThat(analysis(context).getAction())
				.startsWith("Did you mean backoff.kafka.listeners.prices? "));
	}

	@Test
	void namesNoSettingWhenNoneIsClose() {
		this.runner.withPropertyValues("backoff.policies.quotes.colour=red")
			.run((context) -> assertThat(analysis(context).getAction())
				.isEqualTo("Correct the key's spelling, or remove it."));
	}

	@Test
	void rejectsAnUnknownKeyUnderTheDefaultsAndTheBudget() {
		this.runner.withPropertyValues("backoff.defaults.jiter=full")
			.run((context) -> assertReport(context, "backoff.defaults.jiter", "full", "is not a Backoff setting"));
		this.runner.withPropertyValues("backoff.policies.quotes.budget.max-token=10")
			.run((context) -> assertReport(context, "backoff.policies.quotes.budget.max-token", "10",
					"is not a Backoff setting"));
	}

	@Test
	void rejectsAnUnknownKeyUnderBackoff() {
		this.runner.withPropertyValues("backoff.polices.quotes.max-attempts=3")
			.run((context) -> assertReport(context, "backoff.polices.quotes.max-attempts", "3",
					"is not a Backoff setting"));
		this.runner.withPropertyValues("backoff.nestd=independent")
			.run((context) -> assertReport(context, "backoff.nestd", "independent", "is not a Backoff setting"));
	}

	@Test
	void reportsTheUnknownKeyOfAPolicyThatHasOnlyUnknownKeysRatherThanAMissingPolicy() {
		this.runner.withBean(Quotes.class)
			.withPropertyValues("backoff.policies.quotes.max-atempts=10")
			.run((context) -> assertReport(context, "backoff.policies.quotes.max-atempts", "10",
					"is not a Backoff setting"));
	}

	@Test
	void rejectsAListWhereOneValueBelongs() {
		this.runner
			.withPropertyValues("backoff.policies.quotes.max-attempts[0]=2", "backoff.policies.quotes.max-attempts[1]=2")
			.run((context) -> assertReport(context, "backoff.policies.quotes.max-attempts[0]", "2",
					"is an element of a list, but backoff.policies.quotes.max-attempts takes one value"));
	}

	@ParameterizedTest
	@ValueSource(doubles = { 2.9, 0.9 })
	void rejectsAFractionWhereAWholeNumberBelongsAsYamlGivesIt(double value) {
		this.runner.withInitializer((context) -> context.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource("yaml", Map.of("backoff.policies.quotes.max-attempts", value))))
			.run((context) -> assertReport(context, "backoff.policies.quotes.max-attempts", String.valueOf(value),
					"must be a whole number"));
	}

	@Test
	void acceptsAWholeNumberWrittenWithAFraction() {
		this.runner.withInitializer((context) -> context.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource("yaml", Map.of("backoff.policies.quotes.max-attempts", 4.0))))
			.withBean(Quotes.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void leavesTheTestSupportsKeysAlone() {
		this.runner.withPropertyValues("backoff.test.seed=42", "backoff.policies.quotes.max-attempts=3")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void checksNothingWhenBackoffIsOff() {
		this.runner.withPropertyValues("backoff.enabled=false", "backoff.policies.quotes.max-atempts=10")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	private static void assertReport(AssertableApplicationContext context, String property, @Nullable String value,
			String rule) {
		FailureAnalysis analysis = analysis(context);
		assertThat(analysis.getDescription()).contains("Property: " + property + System.lineSeparator())
			.contains("Value:    " + value + System.lineSeparator())
			.contains(rule);
		assertThat(analysis.getAction()).isNotBlank();
	}

	private static FailureAnalysis analysis(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
		assertThat(analysis).as("analysis of %s", context.getStartupFailure()).isNotNull();
		return analysis;
	}

	static class Quotes {

		@Backoff("quotes")
		public String fetch() {
			return "quote";
		}

	}

}
