package dev.backoff.sample.monitoring;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import dev.backoff.sample.SampleHttp;
import dev.backoff.sample.monitoring.MonitoringFiles.Query;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.retry.BackoffRetries;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.aot.DisabledInAotMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard and the alert rules in a real Prometheus (Debian's {@code prometheus} package,
 * which {@code .ci/run} installs when it is missing) scraping the sample: the rules pass
 * {@code promtool check rules} and their unit tests, and after traffic that ends in every
 * outcome, every dashboard variable and panel query returns data and every rule is pending or
 * firing, its annotations naming the policy and the method. What each returned is written to
 * {@code target/monitoring/values.md}. Without Prometheus on the {@code PATH} these tests are
 * skipped, and say so.
 */
@MonitoredSampleTest
@DisabledInAotMode
class PrometheusTests {

	@LocalServerPort
	private int port;

	@Autowired
	private BackoffPolicies policies;

	@Autowired
	private BackoffRetries retries;

	@Autowired
	private QuoteLedger ledger;

	/** Whatever failed, the ledger is back for the next test of the shared context. */
	@AfterEach
	void ledgerBack() {
		this.ledger.back();
	}

	@Test
	void promtoolChecksTheRulesAndTheirUnitTests(@TempDir Path directory) throws Exception {
		Path promtool = installed("promtool");
		assertThat(run(promtool.toString(), "check", "rules", MonitoringFiles.RULES.toString()))
			.contains("SUCCESS: " + MonitoringFiles.rules().size() + " rules found");
		// promtool reads the rules beside the test file.
		Files.copy(MonitoringFiles.RULES, directory.resolve("backoff-alerts.yml"));
		Path tests = directory.resolve("backoff-alerts-test.yml");
		Files.copy(Path.of("src", "test", "resources", "monitoring", "backoff-alerts-test.yml"), tests);
		assertThat(run(promtool.toString(), "test", "rules", tests.toString())).contains("SUCCESS");
	}

	@Test
	void everyPanelFindsDataAndEveryRuleFiresAfterTheTraffic(@TempDir Path directory) throws Exception {
		Path prometheus = installed("prometheus");
		SampleTraffic traffic = new SampleTraffic(new SampleHttp(this.port), this.policies, this.retries, this.ledger);
		Map<String, String> values = new LinkedHashMap<>();
		try (PrometheusServer server = PrometheusServer.start(prometheus, directory, this.port, MonitoringFiles.RULES)) {
			server.awaitScrapeAfterNow();
			// Twice, with a scrape between: a series born during the first round (a retry's first
			// exception of a kind, say) increases in the second.
			traffic.produceEveryOutcome();
			server.awaitScrapeAfterNow();
			traffic.produceEveryOutcome();
			server.awaitScrapeAfterNow();
			for (MonitoringFiles.Variable variable : MonitoringFiles.variables()) {
				List<String> found = server.labelValues(matchAll(variable.selector()), variable.label());
				assertThat(found).as("variable " + variable.name()).isNotEmpty();
				values.put("variable " + variable.name(), String.join(", ", found));
			}
			for (Query query : MonitoringFiles.allQueries()) {
				JsonNode result = server.query(matchAll(query.expr()));
				assertThat(result).as(query.name() + ": " + query.expr()).isNotEmpty();
				values.put(query.name(), describe(result));
			}
			assertThat(server.rules().findValues("health")).isNotEmpty()
				.allSatisfy((health) -> assertThat(health.asString()).isEqualTo("ok"));
			JsonNode alerts = awaitEveryRule(server);
			for (JsonNode alert : alerts) {
				String method = alert.get("labels").get("method").asString();
				String policy = alert.get("labels").get("policy").asString();
				for (String annotation : List.of("summary", "description")) {
					assertThat(alert.get("annotations").get(annotation).asString()).contains(method)
						.contains(policy)
						.doesNotContain("<no value>");
				}
			}
			values.put("alerts", describeAlerts(alerts));
		}
		traffic.outageEnds();
		write(values);
	}

	/** The dashboard's variables set to match all, and Grafana's rate interval. */
	private static String matchAll(String expr) {
		String query = expr.replace("$__rate_interval", "1m");
		for (String variable : List.of("application", "instance", "policy", "method")) {
			query = query.replace("$" + variable, ".*");
		}
		assertThat(query).as("a variable left in " + expr).doesNotContain("$");
		return query;
	}

	private static JsonNode awaitEveryRule(PrometheusServer server) throws Exception {
		Set<String> names = new TreeSet<>();
		MonitoringFiles.rules().forEach((rule) -> names.add((String) rule.get("alert")));
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		JsonNode alerts;
		do {
			alerts = server.alerts();
			Set<String> active = new TreeSet<>();
			alerts.forEach((alert) -> active.add(alert.get("labels").get("alertname").asString()));
			if (active.containsAll(names)) {
				return alerts;
			}
			Thread.sleep(50);
		}
		while (System.nanoTime() < deadline);
		throw new AssertionError("Not every rule pending or firing: " + alerts);
	}

	private static String describe(JsonNode result) {
		List<String> samples = new ArrayList<>();
		for (JsonNode sample : result) {
			List<String> labels = new ArrayList<>();
			sample.get("metric").properties().forEach((label) -> labels.add(label.getKey() + "=" + label.getValue().asString()));
			samples.add("{" + String.join(", ", labels) + "} " + sample.get("value").get(1).asString());
		}
		return String.join("; ", samples);
	}

	private static String describeAlerts(JsonNode alerts) {
		List<String> lines = new ArrayList<>();
		for (JsonNode alert : alerts) {
			JsonNode labels = alert.get("labels");
			lines.add(labels.get("alertname").asString() + " " + alert.get("state").asString() + " "
					+ labels.get("method").asString() + " (" + labels.get("policy").asString() + "): "
					+ alert.get("annotations").get("summary").asString());
		}
		return String.join("; ", lines);
	}

	private static void write(Map<String, String> values) throws IOException {
		Path report = Path.of("target", "monitoring", "values.md");
		Files.createDirectories(report.getParent());
		StringBuilder text = new StringBuilder("# What each panel's query and each rule returned against the sample\n\n");
		values.forEach((name, value) -> text.append("- **").append(name).append("**: ").append(value).append('\n'));
		Files.writeString(report, text);
	}

	/** @return the program, or the test is skipped, saying why */
	private static Path installed(String program) {
		Optional<Path> path = PrometheusServer.onPath(program);
		if (path.isEmpty()) {
			// Surefire lists a skipped test without its reason: printed, so that the build's output says it.
			System.out.println("PrometheusTests: " + program + " is not on the PATH, so the checks with a real "
					+ "Prometheus are skipped. Install Debian's prometheus package (apt-get install prometheus), "
					+ "as .ci/run does.");
		}
		Assumptions.assumeTrue(path.isPresent(), program + " is not on the PATH (apt-get install prometheus)");
		return path.get();
	}

	private static String run(String... command) throws Exception {
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes());
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(process.exitValue()).as(output).isZero();
		return output;
	}

}
