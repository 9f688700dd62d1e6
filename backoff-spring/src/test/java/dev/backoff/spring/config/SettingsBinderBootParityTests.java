package dev.backoff.spring.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SettingsBinder} against Spring Boot's own {@link Binder} on the same property sources:
 * over generated combinations of 1 to 4 sources, each giving some of a policy's settings under
 * {@code backoff.defaults} and {@code backoff.policies.quotes}, in the key forms Boot reads from
 * a source that is not the system environment (kebab-case, camelCase, underscores, upper case),
 * lists as one comma-separated value or as {@code [i]} elements (gaps, leading zeros and huge
 * indexes among them), valid values and values that do not convert. Both must bind the same
 * settings, or both must refuse. Boot is on this module's test class path only.
 */
class SettingsBinderBootParityTests {

	private static final int COMBINATIONS = 6000;

	private static final String[] TARGETS = { "backoff.defaults", "backoff.policies.quotes" };

	/** Scalar settings by Java property path, with valid values to draw from. */
	private static final Map<String, String[]> SCALARS = new LinkedHashMap<>();

	/** A value each scalar setting refuses, drawn now and then. */
	private static final Map<String, String[]> INVALID = new LinkedHashMap<>();

	static {
		scalar("maxAttempts", new String[] { "1", "3", "5", " 4 ", "" }, "2.9", "three");
		scalar("baseDelay", new String[] { "100ms", "2s", "PT0.5S", "250", "" }, "1x");
		scalar("multiplier", new String[] { "1.5", "2", "3.0" }, "abc");
		scalar("jitter", new String[] { "none", "FULL", "Equal", "decorrelated", "" }, "fulll");
		scalar("maxElapsed", new String[] { "10s", "1m" }, "-");
		// Not yes/no/on/off: Boot's converter reads them, Backoff's switches refuse them on purpose
		// (docs/configuration.md); under Boot, BackoffPropertiesCheck refuses them as SettingsBinder
		// does (EnableBackoffWithBootTests compares the two).
		scalar("retryNonIdempotent", new String[] { "true", "false", "TRUE" }, "flase");
		scalar("retryOnDataAccess", new String[] { "transient", "ANY", "Transient", "" }, "transients");
		scalar("budget.maxTokens", new String[] { "10", "2.5" }, "x");
	}

	private static void scalar(String path, String[] valid, String... invalid) {
		SCALARS.put(path, valid);
		INVALID.put(path, invalid);
	}

	private static final String[] LISTS = { "retryOn", "abortOn" };

	private static final String[] ELEMENTS = { "java.io.IOException", "java.net.ConnectException",
			" java.lang.IllegalStateException ", "a,b", "" };

	private static final String[] WHOLE = { "java.io.IOException", "java.io.IOException,java.net.ConnectException",
			"a, b ,c", "", " ", "a,,b", ",", "x," };

	/** Hostile indexes, drawn now and then in place of a well-formed one. */
	private static final String[] ODD_INDEXES = { "99999999999", "2000000000", "01", "00", "7", "-1" };

	@Test
	void bindsAsSpringBootsBinderDoesOverManyCombinationsOfSourcesKeyFormsAndLists() {
		Random random = new Random(20260417L);
		int bound = 0;
		int refused = 0;
		for (int i = 0; i < COMBINATIONS; i++) {
			List<Map<String, Object>> sources = sources(random);
			StandardEnvironment environment = environment(sources);
			Outcome ours = outcome(() -> SettingsBinder.bind(environment));
			Outcome boots = outcome(() -> {
				BackoffSettings settings = new BackoffSettings();
				new Binder(ConfigurationPropertySources.from(environment.getPropertySources())).bind("backoff",
						Bindable.ofInstance(settings));
				return settings;
			});
			String description = "combination " + i + ", sources highest priority first: " + sources + "; ours: " + ours
					+ "; Boot's: " + boots;
			if (boots.failure() != null) {
				assertThat(boots.failure()).as(description).isInstanceOf(BindException.class);
				assertThat(ours.failure()).as(description).isInstanceOf(BackoffConfigurationException.class);
				refused++;
			}
			else {
				assertThat(ours.failure()).as(description).isNull();
				assertThat(ours.settings()).as(description).usingRecursiveComparison().isEqualTo(boots.settings());
				bound++;
			}
		}
		System.out.printf("SettingsBinder against Boot's Binder: %d combinations, %d bound alike, %d refused by both%n",
				COMBINATIONS, bound, refused);
		// Both kinds of outcome are well represented, or the comparison would prove little.
		assertThat(bound).isGreaterThan(COMBINATIONS / 3);
		assertThat(refused).isGreaterThan(COMBINATIONS / 20);
	}

	private static List<Map<String, Object>> sources(Random random) {
		int count = 1 + random.nextInt(4);
		List<Map<String, Object>> sources = new ArrayList<>();
		for (int s = 0; s < count; s++) {
			Map<String, Object> source = new LinkedHashMap<>();
			for (String target : TARGETS) {
				if (random.nextInt(10) < 7) {
					SCALARS.forEach((path, values) -> {
						if (random.nextInt(10) < 3) {
							scalar(source, target, path, values, random);
						}
					});
					for (String path : LISTS) {
						if (random.nextInt(10) < 4) {
							list(source, target, path, random);
						}
					}
				}
			}
			if (random.nextInt(10) == 0) {
				// The environment-variable form: only Boot's system-environment source reads it.
				source.put("BACKOFF_DEFAULTS_MAXATTEMPTS", "9");
			}
			sources.add(source);
		}
		return sources;
	}

	/** Kebab-case, another form, or both (Boot reads the kebab-case one first). */
	private static void scalar(Map<String, Object> source, String target, String path, String[] values, Random random) {
		int mode = random.nextInt(20);
		if (mode < 10 || mode >= 17) {
			source.put(target + "." + dashed(path), value(path, values, random));
		}
		if (mode >= 10) {
			source.put(otherForm(target, path, random), value(path, values, random));
		}
	}

	private static String value(String path, String[] values, Random random) {
		return (random.nextInt(40) == 0) ? pick(INVALID.get(path), random) : pick(values, random);
	}

	private static void list(Map<String, Object> source, String target, String path, Random random) {
		int mode = random.nextInt(10);
		String other = otherForm(target, path, random);
		if (mode < 4 || mode == 9) {
			int form = random.nextInt(3);
			if (form != 1) {
				source.put(target + "." + dashed(path), pick(WHOLE, random));
			}
			if (form != 0) {
				source.put(other, pick(WHOLE, random));
			}
		}
		if (mode >= 4) {
			int size = 1 + random.nextInt(3);
			for (int index = 0; index < size; index++) {
				String written = (random.nextInt(25) == 0) ? pick(ODD_INDEXES, random) : String.valueOf(index);
				int form = random.nextInt(6);
				if (form < 4) {
					source.put(target + "." + dashed(path) + "[" + written + "]", pick(ELEMENTS, random));
				}
				if (form >= 3) {
					source.put(other + "[" + written + "]", pick(ELEMENTS, random));
				}
			}
		}
	}

	/** One of Boot's relaxed forms other than kebab-case, the prefix's case varied too. */
	private static String otherForm(String target, String path, Random random) {
		String prefix = switch (random.nextInt(3)) {
			case 0 -> target;
			case 1 -> target.replace("backoff.", "Backoff.").replace("defaults", "DEFAULTS").replace("policies", "Policies");
			default -> target.replace("backoff", "BACKOFF");
		};
		String key = switch (random.nextInt(4)) {
			case 0 -> path;
			case 1 -> dashed(path).replace('-', '_');
			case 2 -> dashed(path).replace('-', '_').toUpperCase(Locale.ROOT);
			default -> dashed(path).toUpperCase(Locale.ROOT);
		};
		return prefix + "." + key;
	}

	private static String dashed(String path) {
		return path.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
	}

	private static String pick(String[] values, Random random) {
		return values[random.nextInt(values.length)];
	}

	private static StandardEnvironment environment(List<Map<String, Object>> sources) {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
		environment.getPropertySources().remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
		for (int i = 0; i < sources.size(); i++) {
			environment.getPropertySources().addLast(new MapPropertySource("source" + i, sources.get(i)));
		}
		return environment;
	}

	private static Outcome outcome(Supplier<BackoffSettings> binding) {
		try {
			return new Outcome(binding.get(), null);
		}
		catch (RuntimeException ex) {
			return new Outcome(null, ex);
		}
	}

	private record Outcome(BackoffSettings settings, RuntimeException failure) {

		@Override
		public String toString() {
			return (this.failure != null) ? this.failure.toString() : "bound";
		}

	}

}
