package dev.backoff.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import dev.backoff.Backoff;
import dev.backoff.spring.config.PolicySetting;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the configuration metadata that the build generates from
 * {@link BackoffProperties} (and merges with
 * {@code additional-spring-configuration-metadata.json}), which IDEs use to complete and
 * explain {@code backoff.*} keys.
 */
class BackoffConfigurationMetadataTests {

	@Test
	void describesBackoffEnabled() throws IOException {
		Map<String, Object> property = property(metadata(), "backoff.enabled");
		assertThat(property).containsEntry("type", "java.lang.Boolean").containsEntry("defaultValue", true);
		assertThat((String) property.get("description")).contains("When false no proxy is created");
	}

	@Test
	void describesObservationsEnabled() throws IOException {
		Map<String, Object> property = property(metadata(), "backoff.observations.enabled");
		// No default: unset means "when a handler other than a meter handler is defined".
		assertThat(property).containsEntry("type", "java.lang.Boolean").doesNotContainKey("defaultValue");
		assertThat((String) property.get("description")).contains("backoff.call observation")
			.contains("backoff.attempt observation")
			.contains("other than a meter handler");
	}

	@Test
	void describesEverySettingOfThePolicyTableWithItsType() throws IOException {
		DocumentContext metadata = metadata();
		for (PolicySetting<?> setting : PolicySetting.all()) {
			Map<String, Object> property = property(metadata, "backoff.defaults." + setting.propertyName());
			assertThat((String) property.get("description")).as(setting.name()).isNotBlank().endsWith(".");
			assertThat((String) property.get("type")).as(setting.name())
				.isEqualTo((setting.type() == List.class) ? "java.util.List<java.lang.String>" : setting.type().getName());
		}
	}

	@Test
	void describesNoPolicyKeyThatIsNotInTheTable() throws IOException {
		List<String> names = metadata().read("$.properties[*].name");
		assertThat(names.stream().filter((name) -> name.startsWith("backoff.defaults.")))
			.containsExactlyInAnyOrderElementsOf(PolicySetting.all()
				.stream()
				.map((setting) -> "backoff.defaults." + setting.propertyName())
				.toList());
	}

	@Test
	void theConfigurationPageHasARowForEveryKey() throws IOException {
		String page = Files.readString(Path.of("../docs/configuration.md"), StandardCharsets.UTF_8);
		List<String> names = metadata().read("$.properties[*].name");
		assertThat(names).hasSizeGreaterThan(20);
		for (String name : names) {
			// A policy's keys are shown without the prefix: the table says it.
			String key = name.startsWith("backoff.defaults.") ? name.substring("backoff.defaults.".length()) : name;
			assertThat(page).as(name).containsPattern("(?m)^\\| [^|]*`" + Pattern.quote(key) + "`");
		}
	}

	@Test
	void theConfigurationPageHasARowForEveryAnnotationAttribute() throws IOException {
		String page = Files.readString(Path.of("../docs/configuration.md"), StandardCharsets.UTF_8);
		for (Method attribute : Backoff.class.getDeclaredMethods()) {
			assertThat(page).as(attribute.getName())
				.containsPattern("(?m)^\\| [^|]*\\| [^|]*`" + attribute.getName() + " = ");
		}
	}

	@Test
	void describesTheSchedulerSettings() throws IOException {
		DocumentContext metadata = metadata();
		for (String key : List.of("pool-size", "thread-name-prefix")) {
			assertThat((String) property(metadata, "backoff.scheduler." + key).get("description")).as(key)
				.isNotBlank()
				.endsWith(".");
		}
	}

	@Test
	void describesMaxAttemptsAsCountingEveryCall() throws IOException {
		Map<String, Object> property = property(metadata(), "backoff.defaults.max-attempts");
		assertThat(property).containsEntry("type", "java.lang.Integer");
		assertThat((String) property.get("description")).contains("the first included");
	}

	@Test
	void describesDurationsAsDurations() throws IOException {
		DocumentContext metadata = metadata();
		assertThat(property(metadata, "backoff.defaults.base-delay")).containsEntry("type", "java.time.Duration");
		assertThat(property(metadata, "backoff.defaults.max-delay")).containsEntry("type", "java.time.Duration");
		assertThat(property(metadata, "backoff.defaults.max-elapsed")).containsEntry("type", "java.time.Duration");
		assertThat(property(metadata, "backoff.defaults.attempt-timeout")).containsEntry("type", "java.time.Duration");
	}

	@Test
	void describesNamedPolicies() throws IOException {
		Map<String, Object> property = property(metadata(), "backoff.policies");
		assertThat((String) property.get("type")).startsWith("java.util.Map<java.lang.String,");
		assertThat((String) property.get("description")).contains("backoff.defaults");
	}

	@Test
	void givesTheDefaultValuesOfDefaults() throws IOException {
		DocumentContext metadata = metadata();
		assertThat(property(metadata, "backoff.defaults.max-attempts")).containsEntry("defaultValue", 3);
		assertThat(property(metadata, "backoff.defaults.base-delay")).containsEntry("defaultValue", "100ms");
		assertThat(property(metadata, "backoff.defaults.max-delay")).containsEntry("defaultValue", "20s");
		assertThat(property(metadata, "backoff.defaults.jitter")).containsEntry("defaultValue", "full");
		assertThat(((Number) property(metadata, "backoff.defaults.multiplier").get("defaultValue")).doubleValue())
			.isEqualTo(2.0);
	}

	@Test
	void givesTheDefaultValuesOfOutageMode() throws IOException {
		DocumentContext metadata = metadata();
		assertThat(property(metadata, "backoff.kafka.outage")).containsEntry("defaultValue", "pause");
		assertThat(property(metadata, "backoff.kafka.outage-probe-delay")).containsEntry("defaultValue", "1s");
		// 10s, not 30s: instances that find the recovery up to 30 s late drain the backlog late (docs/benchmarks.md).
		assertThat(property(metadata, "backoff.kafka.outage-max-pause")).containsEntry("defaultValue", "10s");
		assertThat(property(metadata, "backoff.kafka.outage-alert-after")).containsEntry("defaultValue", "5m");
	}

	@Test
	void hintsTheFourJitterValues() throws IOException {
		List<String> values = metadata().read("$.hints[?(@.name == 'backoff.defaults.jitter')].values[*].value");
		assertThat(values).containsExactly("none", "full", "equal", "decorrelated");
	}

	@Test
	void hintsThrowableClassesForRetryOnAndAbortOn() throws IOException {
		DocumentContext metadata = metadata();
		for (String key : List.of("backoff.defaults.retry-on", "backoff.defaults.abort-on")) {
			List<String> targets = metadata.read(
					"$.hints[?(@.name == '" + key + "')].providers[?(@.name == 'class-reference')].parameters.target");
			assertThat(targets).as(key).containsExactly("java.lang.Throwable");
		}
	}

	private static Map<String, Object> property(DocumentContext metadata, String name) {
		List<Map<String, Object>> matches = metadata.read("$.properties[?(@.name == '" + name + "')]");
		assertThat(matches).as("metadata of %s", name).hasSize(1);
		return matches.get(0);
	}

	/** Reads the file generated for this module, not one of another jar on the class path. */
	private static DocumentContext metadata() throws IOException {
		URL classes = BackoffProperties.class.getProtectionDomain().getCodeSource().getLocation();
		try (InputStream in = new URL(classes, "META-INF/spring-configuration-metadata.json").openStream()) {
			return JsonPath.parse(in);
		}
	}

}
