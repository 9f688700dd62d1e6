package dev.backoff.sample.monitoring;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The dashboard and the alert rules that users load, read from the repository's
 * {@code monitoring} directory: every query they hold, named as a person finds it.
 */
final class MonitoringFiles {

	static final Path DASHBOARD = Path.of("..", "monitoring", "grafana", "backoff-dashboard.json");

	static final Path RULES = Path.of("..", "monitoring", "prometheus", "backoff-alerts.yml");

	private MonitoringFiles() {
	}

	/** A PromQL query of the dashboard or the rules. */
	record Query(String name, String expr) {

		@Override
		public String toString() {
			return this.name;
		}

	}

	/** A dashboard variable: Grafana's {@code label_values(selector, label)}. */
	record Variable(String name, String selector, String label) {
	}

	static JsonNode dashboard() {
		return JsonMapper.shared().readTree(DASHBOARD.toFile());
	}

	/** @return every panel's every target, named {@code panel title [refId]} */
	static List<Query> panelQueries() {
		List<Query> queries = new ArrayList<>();
		for (JsonNode panel : dashboard().get("panels")) {
			for (JsonNode target : panel.path("targets")) {
				queries.add(new Query(panel.get("title").asString() + " [" + target.get("refId").asString() + "]",
						target.get("expr").asString()));
			}
		}
		return queries;
	}

	/** @return the query variables, each a {@code label_values} */
	static List<Variable> variables() {
		List<Variable> variables = new ArrayList<>();
		for (JsonNode variable : dashboard().get("templating").get("list")) {
			if ("query".equals(variable.get("type").asString())) {
				String query = variable.get("query").asString();
				java.util.regex.Matcher matcher = java.util.regex.Pattern
					.compile("label_values\\((.+), *(\\w+)\\)").matcher(query);
				if (!matcher.matches()) {
					throw new AssertionError("Not a label_values query: " + query);
				}
				variables.add(new Variable(variable.get("name").asString(), matcher.group(1), matcher.group(2)));
			}
		}
		return variables;
	}

	/** @return every alert rule, named after its alert */
	@SuppressWarnings("unchecked")
	static List<Map<String, Object>> rules() {
		try (Reader reader = Files.newBufferedReader(RULES)) {
			Map<String, Object> file = new Yaml().load(reader);
			List<Map<String, Object>> rules = new ArrayList<>();
			for (Map<String, Object> group : (List<Map<String, Object>>) file.get("groups")) {
				rules.addAll((List<Map<String, Object>>) group.get("rules"));
			}
			return rules;
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	static List<Query> ruleQueries() {
		return rules().stream()
			.map((rule) -> new Query((String) rule.get("alert"), ((String) rule.get("expr")).strip()))
			.toList();
	}

	/** @return the queries of the dashboard and of the rules */
	static List<Query> allQueries() {
		List<Query> all = new ArrayList<>(panelQueries());
		all.addAll(ruleQueries());
		return all;
	}

}
