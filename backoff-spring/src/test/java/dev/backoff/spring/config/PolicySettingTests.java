package dev.backoff.spring.config;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import dev.backoff.Backoff;
import dev.backoff.BackoffPolicy;
import dev.backoff.Jitter;
import dev.backoff.spring.data.DataAccessRetry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.BeanUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table of policy settings against everything that must agree with it: the properties of
 * {@link PolicySettings}, the attributes of {@code @Backoff}, what the merge puts on the core's
 * builder and reads back, and the sources, which name a setting in at most two places.
 */
class PolicySettingTests {

	/** Attributes of {@code @Backoff} that are not a policy's settings. */
	private static final Set<String> NOT_SETTINGS = Set.of("value", "policy", "retryIf", "fallback");

	@Test
	void everyPropertyOfPolicySettingsHasARowAndEveryRowAProperty() {
		assertThat(PolicySetting.all().stream().map(PolicySetting::name))
			.containsExactlyInAnyOrderElementsOf(properties(PolicySettings.class, ""));
	}

	@Test
	void everyAttributeOfBackoffIsARowOrNamesThePolicyOrTheMethod() {
		for (Method attribute : Backoff.class.getDeclaredMethods()) {
			PolicySetting<?> setting = PolicySetting.named(attribute.getName());
			if (NOT_SETTINGS.contains(attribute.getName())) {
				assertThat(setting).as(attribute.getName()).isNull();
				continue;
			}
			assertThat(setting).as("a row for @Backoff(%s)", attribute.getName()).isNotNull();
			Class<?> type = attribute.getReturnType();
			assertThat(type == String.class || (type.isArray() && (setting.type() == List.class
					? type.getComponentType() == Class.class : type.getComponentType() == setting.type())))
				.as("@Backoff(%s) is a string, or an array of the row's type", attribute.getName())
				.isTrue();
		}
	}

	@Test
	void everyRowReadsBackWhatTheMergePutOnThePolicy() {
		PolicySettings settings = new PolicySettings();
		Map<String, Object> given = Map.ofEntries(Map.entry("maxAttempts", 4), Map.entry("baseDelay", Duration.ofMillis(50)),
				Map.entry("maxDelay", Duration.ofSeconds(3)), Map.entry("multiplier", 1.5),
				Map.entry("jitter", Jitter.EQUAL), Map.entry("maxElapsed", Duration.ofSeconds(30)),
				Map.entry("attemptTimeout", Duration.ofSeconds(2)), Map.entry("retryOn", List.of("java.io.IOException")),
				Map.entry("hedgeDelay", Duration.ofMillis(40)), Map.entry("maxHedges", 2), Map.entry("hedgePercentile", 99.0),
				Map.entry("hedgeMaxExtraLoad", 0.02),
				Map.entry("abortOn", List.of("java.io.FileNotFoundException")),
				Map.entry("retryOnException", "#exception.message != null"),
				Map.entry("maxRetryAfter", Duration.ofSeconds(7)), Map.entry("throttleBaseDelay", Duration.ofSeconds(1)),
				Map.entry("throttleMaxDelay", Duration.ofSeconds(9)),
				Map.entry("throttleOn", List.of("java.net.SocketTimeoutException")),
				Map.entry("retryNonIdempotent", true), Map.entry("retryOnDataAccess", DataAccessRetry.ANY),
				Map.entry("budget.enabled", true),
				Map.entry("budget.maxTokens", 8.0), Map.entry("budget.tokenRatio", 0.2),
				Map.entry("budget.throttleCost", 0.5), Map.entry("admission.enabled", true),
				Map.entry("admission.ratio", 3.0), Map.entry("admission.window", Duration.ofMinutes(1)),
				Map.entry("admission.maxRejection", 0.8), Map.entry("admission.firstAttempts", false),
				Map.entry("pacing.enabled", true));
		assertThat(given.keySet()).as("a value for every row")
			.containsExactlyInAnyOrderElementsOf(PolicySetting.all().stream().map(PolicySetting::name).toList());
		given.forEach((name, value) -> PolicySetting.named(name).set(settings, value));
		BackoffSettings properties = new BackoffSettings();
		properties.getPolicies().put("all", settings);
		PolicySnapshot policies = BackoffPolicies.of(properties, null, BackoffPolicy.defaults(), null).snapshot();
		Map<String, Object> read = PolicySetting.values(policies.getEffective("all"));
		given.forEach((name, value) -> assertThat(read.get(name)).as(name)
			.isEqualTo((name.equals("retryOnException")) ? read.get(name) : PolicySetting.yaml(value)));
		assertThat(String.valueOf(read.get("retryOnException"))).contains("#exception.message != null");
	}

	@Test
	void aSettingIsNamedInAtMostTwoPlacesOfTheSpringAndBootModules() throws IOException {
		List<String> sources = new ArrayList<>();
		for (String module : List.of(".", "../backoff-autoconfigure")) {
			try (Stream<Path> paths = Files.walk(Path.of(module, "src/main/java"))) {
				for (Path path : paths.filter((path) -> path.toString().endsWith(".java")).toList()) {
					sources.add(Files.readString(path));
				}
			}
		}
		Map<String, Integer> overused = new TreeMap<>();
		for (PolicySetting<?> setting : PolicySetting.all()) {
			for (String name : new TreeSet<>(List.of(setting.name(), setting.propertyName(), setting.key()))) {
				int count = 0;
				for (String source : sources) {
					count += source.split("\"" + java.util.regex.Pattern.quote(name) + "\"", -1).length - 1;
				}
				if (count > 2) {
					overused.put(name, count);
				}
			}
		}
		assertThat(overused).as("settings named as string literals more than twice").isEmpty();
	}

	/** The bean properties of a settings type, nested ones as {@code budget.maxTokens}. */
	private static Set<String> properties(Class<?> type, String prefix) {
		Set<String> names = new TreeSet<>();
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
			if (property.getName().equals("class")) {
				continue;
			}
			if (property.getWriteMethod() == null) {
				names.addAll(properties(property.getPropertyType(), prefix + property.getName() + "."));
			}
			else {
				names.add(prefix + property.getName());
			}
		}
		return names;
	}

}
