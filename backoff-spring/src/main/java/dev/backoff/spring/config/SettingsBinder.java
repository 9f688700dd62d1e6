package dev.backoff.spring.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanWrapper;
import org.springframework.beans.PropertyAccessorFactory;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.util.StringUtils;

/**
 * Binds {@code backoff.*} without Spring Boot: from Spring's {@code Environment} for
 * {@code @EnableBackoff}, and a live change's values onto a policy. Keys are written as in
 * {@code application.yml} ({@code backoff.policies.quotes.max-attempts}; camelCase is read
 * too), values as YAML writes them ({@code 250ms}, {@code full}, a list as {@code a,b} or
 * {@code retry-on[0]}). Every key and value is checked as Boot's binding and
 * {@code BackoffProperties}' strict check do, with the same messages: an unknown key, a
 * value that does not convert, a fraction for a whole number, each stops start-up naming the
 * property, the value and the rule.
 */
public final class SettingsBinder {

	private static final String PREFIX = "backoff.";

	/** backoff-test's own settings, bound by it. */
	private static final String TEST_PREFIX = "backoff.test.";

	private static final Pattern INDEXED = Pattern.compile("^(.*)\\[(\\d+)]$");

	private SettingsBinder() {
	}

	/**
	 * @param environment where {@code backoff.*} is given; every enumerable property source is
	 * read, placeholders resolved
	 * @return the settings
	 * @throws BackoffConfigurationException for the first key or value, in name order, that
	 * breaks a rule
	 */
	public static BackoffSettings bind(Environment environment) {
		BackoffSettings settings = new BackoffSettings();
		Map<String, Map<String, Object>> targets = new LinkedHashMap<>();
		for (String name : names(environment)) {
			String key = name.substring(PREFIX.length());
			Object value = environment.getProperty(name);
			if (key.startsWith("policies.")) {
				String rest = key.substring("policies.".length());
				int dot = rest.indexOf('.');
				if (dot <= 0 || dot == rest.length() - 1) {
					throw unknown(name, value);
				}
				String policy = rest.substring(0, dot);
				targets.computeIfAbsent("backoff.policies." + policy, (prefix) -> new LinkedHashMap<>())
					.put(rest.substring(dot + 1), value);
			}
			else if (key.startsWith("defaults.")) {
				targets.computeIfAbsent("backoff.defaults", (prefix) -> new LinkedHashMap<>())
					.put(key.substring("defaults.".length()), value);
			}
			else {
				targets.computeIfAbsent("backoff", (prefix) -> new LinkedHashMap<>()).put(key, value);
			}
		}
		targets.forEach((prefix, values) -> {
			if (prefix.equals("backoff")) {
				bind(prefix, values, settings);
			}
			else if (prefix.equals("backoff.defaults")) {
				bind(prefix, values, settings.getDefaults());
			}
			else {
				String policy = prefix.substring("backoff.policies.".length());
				bind(prefix, values, settings.getPolicies().computeIfAbsent(policy, (name) -> new BackoffSettings.Policy()));
			}
		});
		return settings;
	}

	/**
	 * @param prefix where the values belong, such as {@code backoff.policies.quotes}, to name
	 * them in errors
	 * @param values the settings by name relative to the policy ({@code max-attempts},
	 * {@code budget.max-tokens})
	 * @return a policy's settings holding them
	 * @throws BackoffConfigurationException for a key or value that breaks a rule
	 */
	public static BackoffSettings.Policy bindPolicy(String prefix, Map<String, ?> values) {
		BackoffSettings.Policy policy = new BackoffSettings.Policy();
		bind(prefix, values, policy);
		return policy;
	}

	/** Every {@code backoff.*} name of the environment's enumerable sources, in name order. */
	private static Collection<String> names(Environment environment) {
		TreeSet<String> names = new TreeSet<>();
		if (environment instanceof ConfigurableEnvironment configurable) {
			for (PropertySource<?> source : configurable.getPropertySources()) {
				if (source instanceof EnumerablePropertySource<?> enumerable) {
					for (String name : enumerable.getPropertyNames()) {
						if (name.startsWith(PREFIX) && !name.startsWith(TEST_PREFIX)) {
							names.add(name);
						}
					}
				}
			}
		}
		return names;
	}

	private static void bind(String prefix, Map<String, ?> values, Object target) {
		BeanWrapper wrapper = PropertyAccessorFactory.forBeanPropertyAccess(target);
		Map<String, List<@Nullable Object>> lists = new LinkedHashMap<>();
		for (String key : new TreeSet<>(values.keySet())) {
			Object value = values.get(key);
			String name = prefix + "." + key;
			Matcher indexed = INDEXED.matcher(key);
			String path = javaPath(indexed.matches() ? indexed.group(1) : key);
			if (!wrapper.isWritableProperty(path)) {
				throw unknown(name, value);
			}
			Class<?> type = wrapper.getPropertyType(path);
			if (indexed.matches()) {
				if (type != List.class) {
					String parent = prefix + "." + indexed.group(1);
					throw new BackoffConfigurationException(name, value,
							"is an element of a list, but " + parent + " takes one value",
							"Give " + parent + " a single value.");
				}
				List<@Nullable Object> list = lists.computeIfAbsent(path, (p) -> new ArrayList<>());
				int index = Integer.parseInt(indexed.group(2));
				while (list.size() <= index) {
					list.add(null);
				}
				list.set(index, value);
				continue;
			}
			wrapper.setPropertyValue(path, convert(name, value, type));
		}
		lists.forEach((path, list) -> wrapper.setPropertyValue(path,
				list.stream().filter((element) -> element != null).map(String::valueOf).toList()));
	}

	/** {@code budget.max-tokens} as the Java property path {@code budget.maxTokens}. */
	private static String javaPath(String key) {
		StringBuilder path = new StringBuilder(key.length());
		boolean upper = false;
		for (char c : key.toCharArray()) {
			if (c == '-') {
				upper = true;
			}
			else {
				path.append(upper ? Character.toUpperCase(c) : c);
				upper = false;
			}
		}
		return path.toString();
	}

	/**
	 * @param name the property, for errors
	 * @param value the value as given
	 * @param type the setting's type
	 * @return the value as that type, or {@code null} for an empty one
	 */
	static @Nullable Object convert(String name, @Nullable Object value, @Nullable Class<?> type) {
		if (value == null || (value instanceof String text && !StringUtils.hasText(text))) {
			return null;
		}
		try {
			if (type == Integer.class || type == int.class) {
				BigDecimal number = new BigDecimal(value.toString().trim());
				// intValueExact refuses a fraction, which a lenient conversion would truncate.
				return number.intValueExact();
			}
			if (type == Double.class || type == double.class) {
				return (value instanceof Number number) ? number.doubleValue() : Double.parseDouble(value.toString().trim());
			}
			if (type == Boolean.class || type == boolean.class) {
				String text = value.toString().trim().toLowerCase(Locale.ROOT);
				if (!text.equals("true") && !text.equals("false")) {
					throw new IllegalArgumentException("Not a boolean: " + value);
				}
				return Boolean.valueOf(text);
			}
			if (type == Duration.class) {
				return (value instanceof Duration) ? value
						: (value instanceof Number number) ? Duration.ofMillis(number.longValue())
								: DurationFormat.parse(value.toString());
			}
			if (type != null && type.isEnum()) {
				String wanted = canonical(value.toString());
				return Arrays.stream(type.getEnumConstants())
					.filter((constant) -> canonical(((Enum<?>) constant).name()).equals(wanted))
					.findFirst()
					.orElseThrow(() -> new IllegalArgumentException("No such constant: " + value));
			}
			if (type == List.class) {
				if (value instanceof Collection<?> collection) {
					return collection.stream().map(String::valueOf).toList();
				}
				return Arrays.asList(StringUtils.commaDelimitedListToStringArray(value.toString()))
					.stream()
					.map(String::trim)
					.toList();
			}
			return value.toString();
		}
		catch (RuntimeException ex) {
			throw BackoffConfigurationException.unbound(name, value, (type != null) ? type : Object.class, ex);
		}
	}

	/** A name without case, dashes or underscores, as Spring Boot compares enum constants. */
	private static String canonical(String name) {
		StringBuilder canonical = new StringBuilder(name.length());
		for (char c : name.toCharArray()) {
			if (Character.isLetterOrDigit(c)) {
				canonical.append(Character.toLowerCase(c));
			}
		}
		return canonical.toString();
	}

	private static BackoffConfigurationException unknown(String name, @Nullable Object value) {
		return BackoffConfigurationException.unknownSetting(name, value, "");
	}

}
