package dev.backoff.spring.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link SettingsBinder} decides as Spring Boot's binding does: per setting, the first
 * (highest-priority) property source that gives it in any of its forms supplies it, a list as a
 * whole, and a list's indexes run from 0 without a gap. {@code SettingsBinderBootParityTests}
 * compares it with Boot's own {@code Binder} over generated combinations.
 */
class SettingsBinderTests {

	@Test
	void aCamelCaseKeyInALowerPrioritySourceDoesNotBeatAHigherPriorityOverride() {
		BackoffSettings settings = SettingsBinder.bind(environment(
				Map.of("backoff.policies.quotes.max-attempts", "5"),
				Map.of("backoff.policies.quotes.maxAttempts", "3")));

		assertThat(settings.getPolicies().get("quotes").getMaxAttempts()).isEqualTo(5);
	}

	@Test
	void aWholeListInAHigherPrioritySourceBeatsIndexedElementsInALowerOne() {
		BackoffSettings settings = SettingsBinder.bind(environment(
				Map.of("backoff.defaults.retry-on", "java.io.IOException"),
				Map.of("backoff.defaults.retry-on[0]", "java.util.concurrent.TimeoutException")));

		assertThat(settings.getDefaults().getRetryOn()).containsExactly("java.io.IOException");
	}

	@Test
	void aHigherPrioritySourcesListIsNotMergedElementByElementWithALowerOnes() {
		BackoffSettings settings = SettingsBinder.bind(environment(
				Map.of("backoff.defaults.retry-on[0]", "java.io.IOException"),
				Map.of("backoff.defaults.retry-on[0]", "java.util.concurrent.TimeoutException",
						"backoff.defaults.retry-on[1]", "java.net.ConnectException")));

		assertThat(settings.getDefaults().getRetryOn()).containsExactly("java.io.IOException");
	}

	@Test
	void aGapInAListsIndexesStopsStartUpNamingTheElementAfterIt() throws IOException {
		Throwable failure = catchThrowable(() -> SettingsBinder.bind(environment(ordered(
				"backoff.defaults.retry-on[0]", "java.io.IOException",
				"backoff.defaults.retry-on[3]", "java.net.ConnectException"))));

		assertThat(failure).isInstanceOf(BackoffConfigurationException.class)
			.hasMessage("backoff.defaults.retry-on[3] was 'java.net.ConnectException', but the indexes of "
					+ "backoff.defaults.retry-on must run 0, 1, 2, ... without a gap, as Spring Boot binds them, "
					+ "and backoff.defaults.retry-on[1] is missing. Number the elements of backoff.defaults.retry-on "
					+ "from [0] without a gap, or give the list as one value, such as a,b.");
		// The page that describes the rule shows this very message.
		assertThat(Files.readString(Path.of("../docs/without-boot.md"))).contains(failure.getMessage());
	}

	@Test
	void anIndexBeyondAnyWholeNumberStopsStartUpNamingTheProperty() {
		Throwable failure = catchThrowable(() -> SettingsBinder.bind(environment(
				Map.of("backoff.policies.quotes.retry-on[99999999999]", "java.io.IOException"))));

		assertThat(failure).isInstanceOf(BackoffConfigurationException.class)
			.hasMessageStartingWith("backoff.policies.quotes.retry-on[99999999999] was 'java.io.IOException', "
					+ "but the indexes of backoff.policies.quotes.retry-on must run 0, 1, 2, ... without a gap, "
					+ "as Spring Boot binds them, and backoff.policies.quotes.retry-on[0] is missing.");
	}

	@Test
	void aLargeValidIndexIsAGapNotAListOfThatManyNulls() {
		Throwable failure = catchThrowable(() -> SettingsBinder.bind(environment(
				Map.of("backoff.defaults.abort-on[2000000000]", "java.lang.IllegalArgumentException"))));

		assertThat(failure).isInstanceOf(BackoffConfigurationException.class)
			.hasMessageStartingWith("backoff.defaults.abort-on[2000000000] was 'java.lang.IllegalArgumentException', "
					+ "but the indexes of backoff.defaults.abort-on must run 0, 1, 2, ... without a gap");
	}

	@Test
	void anIndexWithALeadingZeroIsNotTheSameElementAndStopsStartUp() {
		Throwable failure = catchThrowable(() -> SettingsBinder.bind(environment(ordered(
				"backoff.defaults.retry-on[0]", "java.io.IOException",
				"backoff.defaults.retry-on[01]", "java.net.ConnectException"))));

		assertThat(failure).isInstanceOf(BackoffConfigurationException.class)
			.hasMessageStartingWith("backoff.defaults.retry-on[01] was 'java.net.ConnectException', but the indexes "
					+ "of backoff.defaults.retry-on must run 0, 1, 2, ... without a gap, as Spring Boot binds them, "
					+ "and backoff.defaults.retry-on[1] is missing.");
	}

	@Test
	void aGapInALowerPrioritySourceThatALaterListHidesIsNotAMistake() {
		BackoffSettings settings = SettingsBinder.bind(environment(
				Map.of("backoff.defaults.retry-on", "java.io.IOException"),
				Map.of("backoff.defaults.retry-on[7]", "java.net.ConnectException")));

		assertThat(settings.getDefaults().getRetryOn()).containsExactly("java.io.IOException");
	}

	@Test
	void theElementsOfOneSourcesListMayMixTheKeysForms() {
		BackoffSettings settings = SettingsBinder.bind(environment(ordered(
				"backoff.defaults.retryOn[0]", "java.io.IOException",
				"backoff.defaults.retry_on[1]", "java.net.ConnectException")));

		assertThat(settings.getDefaults().getRetryOn()).containsExactly("java.io.IOException", "java.net.ConnectException");
	}

	@Test
	void theKebabCaseFormWinsOverAnotherFormInTheSameSourceAsWithBoot() {
		BackoffSettings settings = SettingsBinder.bind(environment(ordered(
				"backoff.defaults.maxAttempts", "3",
				"backoff.defaults.max-attempts", "4")));

		assertThat(settings.getDefaults().getMaxAttempts()).isEqualTo(4);
	}

	@Test
	void anEmptyListInAHigherPrioritySourceClearsTheList() {
		BackoffSettings settings = SettingsBinder.bind(environment(
				Map.of("backoff.defaults.retry-on", ""),
				Map.of("backoff.defaults.retry-on", "java.io.IOException")));

		assertThat(settings.getDefaults().getRetryOn()).isEmpty();
	}

	@Test
	void aDurationWithoutANumberStopsStartUpAsUnderBoot() {
		Throwable failure = catchThrowable(() -> SettingsBinder.bind(environment(
				Map.of("backoff.policies.quotes.max-elapsed", "-"))));

		assertThat(failure).isInstanceOf(BackoffConfigurationException.class)
			.hasMessageStartingWith("backoff.policies.quotes.max-elapsed was '-', but must be a duration such as 250ms");
	}

	@Test
	void aLiveChangeBindsItsKeysInTheirJavaForm() {
		PolicySettings policy = SettingsBinder.bindPolicy("backoff.policies.quotes",
				Map.of("maxAttempts", 4, "retryOn", "java.io.IOException, java.net.ConnectException"));

		assertThat(policy.getMaxAttempts()).isEqualTo(4);
		assertThat(policy.getRetryOn()).containsExactly("java.io.IOException", "java.net.ConnectException");
	}

	/** Each map is a property source; the first has the highest priority, as in the Environment. */
	@SafeVarargs
	private static StandardEnvironment environment(Map<String, ?>... sources) {
		StandardEnvironment environment = new StandardEnvironment();
		// Only the test's own sources: a backoff.* system property must not change the outcome.
		environment.getPropertySources().remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
		environment.getPropertySources().remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
		for (int i = 0; i < sources.length; i++) {
			environment.getPropertySources().addLast(new MapPropertySource("source" + i, new LinkedHashMap<>(sources[i])));
		}
		return environment;
	}

	/** Keys and values in the order given, as a properties file lists them. */
	private static Map<String, Object> ordered(String... keysAndValues) {
		Map<String, Object> map = new LinkedHashMap<>();
		for (int i = 0; i < keysAndValues.length; i += 2) {
			map.put(keysAndValues[i], keysAndValues[i + 1]);
		}
		return map;
	}

}
