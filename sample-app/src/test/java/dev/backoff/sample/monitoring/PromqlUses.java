package dev.backoff.sample.monitoring;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a PromQL query takes from the scrape: the {@code backoff_*} metrics it selects, the
 * labels it matches or groups them by, and the literal values it matches (an {@code =} value,
 * or each word of an {@code =~} alternation such as {@code TooManyRequests|ServiceUnavailable}).
 * Enough PromQL for the queries we ship, not a parser of the language.
 */
final class PromqlUses {

	private static final Pattern SELECTOR = Pattern.compile("\\b(backoff_\\w+)(\\{([^}]*)})?");

	private static final Pattern MATCHER = Pattern.compile("(\\w+)\\s*(=~|!~|!=|=)\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

	private static final Pattern GROUPING = Pattern.compile("\\bby\\s*\\(([^)]*)\\)");

	private static final Pattern WORDS = Pattern.compile("\\w+(\\|\\w+)*");

	private PromqlUses() {
	}

	/** A metric, and for each label the query names on it, the values it expects (none: any). */
	record Use(String metric, Map<String, Set<String>> labels) {
	}

	static List<Use> of(String expr) {
		List<Use> uses = new ArrayList<>();
		Matcher selector = SELECTOR.matcher(expr);
		while (selector.find()) {
			Map<String, Set<String>> labels = new LinkedHashMap<>();
			if (selector.group(3) != null) {
				Matcher matcher = MATCHER.matcher(selector.group(3));
				while (matcher.find()) {
					Set<String> values = labels.computeIfAbsent(matcher.group(1), (label) -> new LinkedHashSet<>());
					String operator = matcher.group(2);
					String value = matcher.group(3);
					if (operator.equals("=") && !value.contains("$")) {
						values.add(value);
					}
					else if (operator.equals("=~") && WORDS.matcher(value).matches()) {
						values.addAll(List.of(value.split("\\|")));
					}
				}
			}
			uses.add(new Use(selector.group(1), labels));
		}
		// A grouping's labels are taken from every metric inside the parentheses that follow it.
		Matcher grouping = GROUPING.matcher(expr);
		while (grouping.find()) {
			String argument = argumentAfter(expr, grouping.end());
			for (Use use : of(argument)) {
				for (String label : grouping.group(1).split(",")) {
					uses.add(new Use(use.metric(), Map.of(label.strip(), Set.of())));
				}
			}
		}
		return uses;
	}

	private static String argumentAfter(String expr, int from) {
		int open = expr.indexOf('(', from);
		int depth = 0;
		for (int i = open; i < expr.length(); i++) {
			char c = expr.charAt(i);
			if (c == '(') {
				depth++;
			}
			else if (c == ')' && --depth == 0) {
				return expr.substring(open + 1, i);
			}
		}
		throw new AssertionError("Unbalanced parentheses after " + from + " in " + expr);
	}

}
