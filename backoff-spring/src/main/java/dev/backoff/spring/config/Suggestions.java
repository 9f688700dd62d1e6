package dev.backoff.spring.config;

import java.beans.PropertyDescriptor;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.core.ResolvableType;

/**
 * "Did you mean": the valid name nearest to a mistyped one, for the messages that refuse an
 * unknown key, policy, setting or listener id. Names are compared as Spring Boot compares keys
 * (case, dashes and underscores aside, so {@code maxAttempts} is {@code max-attempts}) by their
 * Damerau-Levenshtein distance (a swap of two neighbours counts one edit), and only a close one
 * is named: at most one edit per three characters of the name given, at least one.
 */
public final class Suggestions {

	private Suggestions() {
	}

	/**
	 * @param given the name as given
	 * @param names the valid names (a {@code null} among them, such as a container's missing id, is skipped)
	 * @return the nearest valid name, if one is close; of equally near ones, the first in
	 * alphabetical order, so that the message does not depend on the order of a set
	 */
	public static Optional<String> nearest(String given, Collection<? extends @Nullable String> names) {
		String wanted = SettingNames.canonical(given);
		int threshold = Math.max(1, wanted.length() / 3);
		@Nullable String best = null;
		int bestDistance = Integer.MAX_VALUE;
		for (String name : names) {
			if (name == null) {
				// A listener container without an id.
				continue;
			}
			int distance = distance(wanted, SettingNames.canonical(name));
			boolean nearer = distance < bestDistance
					|| (distance == bestDistance && best != null && name.compareTo(best) < 0);
			if (distance <= threshold && nearer) {
				best = name;
				bestDistance = distance;
			}
		}
		return Optional.ofNullable(best);
	}

	/**
	 * @param given a name that names nothing, such as a policy's or a listener's
	 * @param names the valid names
	 * @param more more valid names, such as {@value BackoffPolicies#DEFAULTS}
	 * @return the start of an action that names the nearest, {@code "Did you mean 'quotes'? "},
	 * or empty when none is close
	 */
	public static String didYouMean(String given, Collection<? extends @Nullable String> names, String... more) {
		List<@Nullable String> all = new ArrayList<>(names);
		all.addAll(List.of(more));
		return nearest(given, all).map((name) -> "Did you mean '" + name + "'? ").orElse("");
	}

	/**
	 * The key nearest to an unknown {@code backoff.*} key: the key with its first element that
	 * names nothing replaced by the nearest setting at that level ({@code backoff.polices.quotes.max-attempts}
	 * becomes {@code backoff.policies.quotes.max-attempts}), in kebab case.
	 * @param root the class that {@code backoff} binds to
	 * @param name the unknown key, such as {@code backoff.policies.quotes.max-attemps}, in any of
	 * Boot's relaxed forms
	 * @return the key, if a setting is close
	 */
	public static Optional<String> nearestKey(Class<?> root, String name) {
		String[] elements = elements(name);
		ResolvableType type = ResolvableType.forClass(root);
		for (int i = 1; i < elements.length; i++) {
			Class<?> current = type.resolve(Object.class);
			if (Map.class.isAssignableFrom(current)) {
				// This element is the map's key (a policy's name): any is valid.
				type = type.asMap().getGeneric(1);
				continue;
			}
			List<PropertyDescriptor> properties = properties(current);
			String element = elements[i].replaceFirst("\\[.*$", "");
			String wanted = SettingNames.canonical(element);
			@Nullable PropertyDescriptor found = properties.stream()
				.filter((property) -> SettingNames.canonical(property.getName()).equals(wanted))
				.findFirst()
				.orElse(null);
			if (found == null) {
				List<String> names = properties.stream()
					.map((property) -> PolicyMerge.propertyName(property.getName()))
					.toList();
				int at = i;
				return nearest(element, names).map((nearest) -> {
					String[] corrected = elements.clone();
					corrected[at] = nearest + elements[at].substring(element.length());
					return String.join(".", corrected);
				});
			}
			String index = elements[i].substring(element.length());
			elements[i] = PolicyMerge.propertyName(found.getName()) + index;
			type = ResolvableType.forMethodReturnType(found.getReadMethod());
			if (!index.isEmpty() && Map.class.isAssignableFrom(type.resolve(Object.class))) {
				// A map's key in brackets, as Boot writes one with capitals: backoff.policies[Quotes_V2].
				type = type.asMap().getGeneric(1);
			}
		}
		return Optional.empty();
	}

	/** A key's elements: split at each dot outside brackets, which may hold a map's key with dots. */
	private static String[] elements(String name) {
		List<String> elements = new ArrayList<>();
		int depth = 0;
		int start = 0;
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			depth += (c == '[') ? 1 : (c == ']') ? -1 : 0;
			if (c == '.' && depth == 0) {
				elements.add(name.substring(start, i));
				start = i + 1;
			}
		}
		elements.add(name.substring(start));
		return elements.toArray(String[]::new);
	}

	/** The properties of a settings class that a key can name; none for a value such as a number or a list. */
	private static List<PropertyDescriptor> properties(Class<?> type) {
		if (type.isPrimitive() || type.isEnum() || type.getName().startsWith("java.")) {
			return List.of();
		}
		List<PropertyDescriptor> properties = new ArrayList<>();
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
			Method read = property.getReadMethod();
			if (read != null && read.getDeclaringClass() != Object.class) {
				properties.add(property);
			}
		}
		return properties;
	}

	/** Damerau-Levenshtein distance, restricted form (optimal string alignment). */
	static int distance(String a, String b) {
		int[][] d = new int[a.length() + 1][b.length() + 1];
		for (int i = 0; i <= a.length(); i++) {
			d[i][0] = i;
		}
		for (int j = 0; j <= b.length(); j++) {
			d[0][j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			for (int j = 1; j <= b.length(); j++) {
				int cost = (a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1;
				d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
				if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
					d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
				}
			}
		}
		return d[a.length()][b.length()];
	}

}
