package dev.backoff.sample.monitoring;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A scrape of {@code /actuator/prometheus} in the text format: each metric's labels and their values. */
final class Scrape {

	private static final Pattern LINE = Pattern.compile("^(\\w+)(\\{(.*)})?\\s+\\S+");

	private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

	private final Map<String, Map<String, Set<String>>> metrics = new TreeMap<>();

	Scrape(String text) {
		for (String line : text.split("\n")) {
			Matcher sample = LINE.matcher(line);
			if (line.startsWith("#") || !sample.find()) {
				continue;
			}
			Map<String, Set<String>> labels = this.metrics.computeIfAbsent(sample.group(1), (name) -> new TreeMap<>());
			if (sample.group(3) != null) {
				Matcher label = LABEL.matcher(sample.group(3));
				while (label.find()) {
					labels.computeIfAbsent(label.group(1), (name) -> new TreeSet<>()).add(label.group(2));
				}
			}
		}
	}

	boolean has(String metric) {
		return this.metrics.containsKey(metric);
	}

	/** @return the values of a label of a metric, empty when the metric has no such label */
	Set<String> values(String metric, String label) {
		return this.metrics.getOrDefault(metric, Map.of()).getOrDefault(label, Set.of());
	}

	Set<String> metrics() {
		return this.metrics.keySet();
	}

}
