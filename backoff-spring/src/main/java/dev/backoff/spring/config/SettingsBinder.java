package dev.backoff.spring.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
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
 * {@code application.yml} ({@code backoff.policies.quotes.max-attempts}), or in any form that
 * Boot's relaxed binding reads from a property source that is not the system environment
 * (camelCase {@code maxAttempts}, {@code max_attempts}, {@code MAX-ATTEMPTS}); values as YAML
 * writes them ({@code 250ms}, {@code full}, a list as {@code a,b} or {@code retry-on[0]}).
 *
 * <p>Precedence and lists follow Boot's {@code Binder}: for each setting, the first property
 * source in the {@code Environment}'s order that gives it in any form supplies it, and nothing
 * below that source is read for it. A list comes whole from that one source: its value
 * ({@code a,b}) if it has one, else its elements {@code [0]}, {@code [1]}, ... which must run
 * from 0 without a gap (so no index can exceed the number of elements given). Within one source
 * the kebab-case form wins over another form of the same key, as with Boot.
 *
 * <p>Every key and value is checked as Boot's binding and {@code BackoffProperties}' strict
 * check do, with the same messages: an unknown key, a value that does not convert, a fraction
 * for a whole number, a list with a gap, each stops start-up naming the property, the value and
 * the rule.
 */
public final class SettingsBinder {

	private static final String PREFIX = "backoff";

	/** A list's index as Boot matches it: a whole number without sign, spaces or leading zero. */
	private static final Pattern INDEX = Pattern.compile("0|[1-9][0-9]*");

	private static final Pattern INDEXED = Pattern.compile("^(.*)\\[([^\\[\\]]*)]$");

	private SettingsBinder() {
	}

	/**
	 * @param environment where {@code backoff.*} is given; every enumerable property source is
	 * read, in the environment's order, placeholders resolved
	 * @return the settings
	 * @throws BackoffConfigurationException for the first unknown key, in name order, or else
	 * for the first setting, in name order, whose value breaks a rule
	 */
	public static BackoffSettings bind(Environment environment) {
		BackoffSettings settings = new BackoffSettings();
		// By target, then by property source in the environment's order.
		Map<String, List<List<Entry>>> targets = new TreeMap<>();
		if (environment instanceof ConfigurableEnvironment configurable) {
			for (PropertySource<?> source : configurable.getPropertySources()) {
				if (source instanceof EnumerablePropertySource<?> enumerable) {
					Map<String, List<Entry>> own = new LinkedHashMap<>();
					for (String name : enumerable.getPropertyNames()) {
						add(own, name, () -> resolve(environment, enumerable.getProperty(name)));
					}
					own.forEach((target, entries) -> targets.computeIfAbsent(target, (key) -> new ArrayList<>()).add(entries));
				}
			}
		}
		targets.forEach((prefix, sources) -> {
			if (prefix.equals("backoff")) {
				bind(prefix, sources, settings);
			}
			else if (prefix.equals("backoff.defaults")) {
				bind(prefix, sources, settings.getDefaults());
			}
			else {
				PolicySettings policy = new PolicySettings();
				// As with Boot, a policy whose keys are all empty is not there.
				if (bind(prefix, sources, policy)) {
					settings.getPolicies().put(prefix.substring("backoff.policies.".length()), policy);
				}
			}
		});
		return settings;
	}

	/**
	 * @param prefix where the values belong, such as {@code backoff.policies.quotes}, to name
	 * them in errors
	 * @param values the settings by name relative to the policy ({@code max-attempts},
	 * {@code budget.max-tokens}, or their Java forms {@code maxAttempts})
	 * @return a policy's settings holding them
	 * @throws BackoffConfigurationException for a key or value that breaks a rule
	 */
	public static PolicySettings bindPolicy(String prefix, Map<String, ?> values) {
		PolicySettings policy = new PolicySettings();
		List<Entry> entries = new ArrayList<>();
		values.forEach((key, value) -> entries.add(new Entry(prefix + "." + key, key, value)));
		bind(prefix, List.of(entries), policy);
		return policy;
	}

	/**
	 * Files one {@code backoff.*} name of a property source under its target:
	 * {@code backoff}, {@code backoff.defaults} or {@code backoff.policies.<name>}. Each
	 * element of the prefix is compared as Boot compares names (case, dashes and underscores
	 * aside); other names, and backoff-test's {@code backoff.test.*}, are left alone.
	 */
	private static void add(Map<String, List<Entry>> targets, String name, Supplier<@Nullable Object> value) {
		String[] elements = name.split("\\.", -1);
		if (elements.length < 2 || !SettingNames.canonical(elements[0]).equals(PREFIX)) {
			return;
		}
		String first = SettingNames.canonical(elements[1]);
		if (first.equals("test")) {
			return;
		}
		String target = PREFIX;
		int from = 1;
		if (first.equals("policies") && elements.length > 2) {
			if (elements.length < 4 || elements[2].isEmpty() || elements[3].isEmpty()) {
				throw unknown(name, value.get());
			}
			target = PREFIX + ".policies." + elements[2];
			from = 3;
		}
		else if (first.equals("defaults") && elements.length > 2) {
			target = PREFIX + ".defaults";
			from = 2;
		}
		String key = String.join(".", Arrays.copyOfRange(elements, from, elements.length));
		targets.computeIfAbsent(target, (t) -> new ArrayList<>()).add(new Entry(name, key, value.get()));
	}

	/** A string's placeholders resolved, as {@code Environment.getProperty} resolves them. */
	private static @Nullable Object resolve(Environment environment, @Nullable Object value) {
		return (value instanceof String text) ? environment.resolveRequiredPlaceholders(text) : value;
	}

	/**
	 * @param prefix the target's name, such as {@code backoff.defaults}
	 * @param sources the target's entries by property source, highest priority first
	 * @param target the settings object to set
	 * @return whether any setting was set
	 */
	private static boolean bind(String prefix, List<List<Entry>> sources, Object target) {
		BeanWrapper wrapper = PropertyAccessorFactory.forBeanPropertyAccess(target);
		// Every key names a setting, in any source: a typo must not hide behind an override.
		Map<Entry, Key> keys = new IdentityHashMap<>();
		sources.stream()
			.flatMap(List::stream)
			.sorted(Comparator.comparing(Entry::name))
			.forEach((entry) -> keys.put(entry, key(prefix, entry, wrapper)));
		boolean set = false;
		Set<String> paths = new TreeSet<>();
		keys.values().forEach((key) -> paths.add(key.path()));
		for (String path : paths) {
			for (List<Entry> source : sources) {
				List<Entry> here = source.stream().filter((entry) -> keys.get(entry).path().equals(path)).toList();
				if (!here.isEmpty()) {
					// The highest-priority source that gives the setting decides it alone.
					Class<?> type = wrapper.getPropertyType(path);
					Entry preferred = preferred(prefix + "." + PolicyMerge.propertyName(path), here);
					Object value = (type == List.class) ? list(prefix, path, here, keys)
							: convert(preferred.name(), preferred.value(), type);
					if (value != null) {
						// An empty value leaves the setting unset, as Boot leaves it.
						wrapper.setPropertyValue(path, value);
						set = true;
					}
					break;
				}
			}
		}
		return set;
	}

	/**
	 * @return the setting that an entry's key names, and its index if it is a list's element
	 * @throws BackoffConfigurationException if it names no setting, or indexes a single value
	 */
	private static Key key(String prefix, Entry entry, BeanWrapper wrapper) {
		Matcher indexed = INDEXED.matcher(entry.key());
		String base = indexed.matches() ? indexed.group(1) : entry.key();
		String path = SettingNames.javaPath(wrapper.getWrappedClass(), base);
		if (path == null || !wrapper.isWritableProperty(path)) {
			throw unknown(entry.name(), entry.value());
		}
		if (indexed.matches() && wrapper.getPropertyType(path) != List.class) {
			String parent = prefix + "." + base;
			throw new BackoffConfigurationException(entry.name(), entry.value(),
					"is an element of a list, but " + parent + " takes one value",
					"Give " + parent + " a single value.");
		}
		return new Key(path, indexed.matches() ? indexed.group(2) : null);
	}

	/**
	 * Of the entries of one source that give the same setting, the one written exactly as
	 * requested ({@code backoff.defaults.max-attempts}), which Boot looks up first; else the
	 * first in the source's order.
	 */
	private static Entry preferred(String name, List<Entry> entries) {
		return entries.stream().filter((entry) -> entry.name().equals(name)).findFirst().orElse(entries.get(0));
	}

	/**
	 * @param here the entries of the one source that supplies the list
	 * @return the list: the source's whole value if it gives one, else its elements
	 * @throws BackoffConfigurationException if the elements' indexes do not run from 0 without
	 * a gap
	 */
	private static @Nullable Object list(String prefix, String path, List<Entry> here, Map<Entry, Key> keys) {
		String name = prefix + "." + PolicyMerge.propertyName(path);
		List<Entry> whole = here.stream().filter((entry) -> keys.get(entry).index() == null).toList();
		if (!whole.isEmpty()) {
			Entry entry = preferred(name, whole);
			return convert(entry.name(), entry.value(), List.class);
		}
		Map<String, List<Entry>> byIndex = new LinkedHashMap<>();
		here.forEach((entry) -> byIndex.computeIfAbsent(keys.get(entry).index(), (index) -> new ArrayList<>()).add(entry));
		List<String> elements = new ArrayList<>();
		// n distinct indexes are 0..n-1 exactly when none below n is missing: no index is ever
		// parsed, so [99999999999] or [2000000000] is a gap like any other, as it is for Boot.
		for (int i = 0; i < byIndex.size(); i++) {
			List<Entry> element = byIndex.get(String.valueOf(i));
			if (element == null) {
				throw gap(name, i, here.stream().filter((entry) -> !isBelow(keys.get(entry).index(), elements.size())).toList(), keys);
			}
			Object value = preferred(name + "[" + i + "]", element).value();
			elements.add((value instanceof Collection<?> collection)
					? StringUtils.collectionToCommaDelimitedString(collection) : (value != null) ? value.toString() : "");
		}
		return elements;
	}

	private static boolean isBelow(@Nullable String index, int size) {
		return index != null && INDEX.matcher(index).matches() && index.length() <= 9 && Integer.parseInt(index) < size;
	}

	/**
	 * @param name the list
	 * @param missing the first index missing
	 * @param unbound the elements after the gap, which Boot leaves unbound
	 */
	private static BackoffConfigurationException gap(String name, int missing, List<Entry> unbound, Map<Entry, Key> keys) {
		// The lowest index after the gap; a malformed one ([01], [a]) after every well-formed one.
		Entry first = unbound.stream()
			.min(Comparator.comparing((Entry entry) -> !INDEX.matcher(keys.get(entry).index()).matches())
				.thenComparing((entry) -> keys.get(entry).index().length())
				.thenComparing((entry) -> keys.get(entry).index()))
			.orElseThrow();
		return new BackoffConfigurationException(first.name(), first.value(),
				"the indexes of " + name + " must run 0, 1, 2, ... without a gap, as Spring Boot binds them, and "
						+ name + "[" + missing + "] is missing",
				"Number the elements of " + name + " from [0] without a gap, or give the list as one value, such as a,b.");
	}

	/**
	 * @param name the property, for errors
	 * @param value the value as given
	 * @param type the setting's type
	 * @return the value as that type, or {@code null} for an empty one
	 */
	static @Nullable Object convert(String name, @Nullable Object value, @Nullable Class<?> type) {
		if (type == List.class && value instanceof String text && text.isEmpty()) {
			// An empty list, as Boot binds one, so that it can clear a lower source's list.
			return List.of();
		}
		if (value == null || (type != List.class && value instanceof String text && !StringUtils.hasText(text))) {
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
				String wanted = SettingNames.canonical(value.toString());
				return Arrays.stream(type.getEnumConstants())
					.filter((constant) -> SettingNames.canonical(((Enum<?>) constant).name()).equals(wanted))
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

	private static BackoffConfigurationException unknown(String name, @Nullable Object value) {
		return BackoffConfigurationException.unknownSetting(name, value, "");
	}

	/**
	 * One {@code backoff.*} property of a source.
	 * @param name as given, for errors
	 * @param key relative to its target ({@code max-attempts}, {@code retry-on[0]})
	 * @param value its value, placeholders resolved
	 */
	private record Entry(String name, String key, @Nullable Object value) {
	}

	/**
	 * @param path the setting's Java property path
	 * @param index the element's index as written, or {@code null} for a whole value
	 */
	private record Key(String path, @Nullable String index) {
	}

}
