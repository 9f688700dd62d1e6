package dev.backoff.sample.monitoring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.backoff.Outcome;
import dev.backoff.sample.SampleHttp;
import dev.backoff.sample.monitoring.MonitoringFiles.Query;
import dev.backoff.sample.monitoring.PromqlUses.Use;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.retry.BackoffRetries;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.aot.DisabledInAotMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard ({@code monitoring/grafana}) and the alert rules ({@code monitoring/prometheus})
 * cannot go stale: the sample produces every outcome, and every metric, label and matched value
 * that they use must be in its {@code /actuator/prometheus} scrape, so that a renamed meter or
 * tag fails here. {@link PrometheusTests} loads them into a real Prometheus.
 */
@MonitoredSampleTest
@DisabledInAotMode
class MonitoringTests {

	@LocalServerPort
	private int port;

	@Autowired
	private BackoffPolicies policies;

	@Autowired
	private BackoffRetries retries;

	@Autowired
	private QuoteLedger ledger;

	private SampleHttp http;

	private SampleTraffic traffic;

	@BeforeEach
	void connect() {
		this.http = new SampleHttp(this.port);
		this.traffic = new SampleTraffic(this.http, this.policies, this.retries, this.ledger);
	}

	@AfterEach
	void endTheOutage() {
		this.traffic.outageEnds();
	}

	@Test
	void theTrafficProducesEveryOutcomeButNested() {
		Map<Outcome, Double> before = outcomes();
		this.traffic.produceEveryOutcome();
		Map<Outcome, Double> after = outcomes();
		for (Outcome outcome : EnumSet.complementOf(EnumSet.of(Outcome.NESTED))) {
			assertThat(after.get(outcome) - before.get(outcome)).as(outcome.tagValue()).isPositive();
		}
		// The sample has no call inside another's attempt: nested is there at 0, registered by
		// each method's first call (backoff.metrics.failures-at-zero).
		assertThat(after.get(Outcome.NESTED)).isZero();
		assertThat(new Scrape(this.http.prometheusScrape()).values("backoff_calls_total", "outcome"))
			.contains(Outcome.NESTED.tagValue());
	}

	/**
	 * The Kafka listener's outage in the traffic: its records held back, none dead-lettered, every
	 * one written once the ledger is back; its health says {@code OUTAGE} once the outage has lasted
	 * {@code backoff.kafka.outage-alert-after} (1s here), {@code UP} again after.
	 */
	@Test
	void aListenerPolicyWithABudgetDeadLettersNoRecordOfAnOutage() {
		String listener = "method=\"" + QuoteLedger.LISTENER + "\"";
		double heldBack = this.http.prometheusSum("backoff_kafka_held_back_total", listener);
		double probeSuccesses = this.http.prometheusSum("backoff_kafka_probes_total", listener + ",outcome=\"success\"");
		this.traffic.produceEveryOutcome();
		assertThat(this.http.prometheusSum("backoff_kafka_held_back_total", listener)).isGreaterThan(heldBack);
		QuoteLedger.await(Duration.ofSeconds(10), () -> health().contains("\"status\":\"OUTAGE\""),
				"the health of a listener in an outage for 1s");
		assertThat(health()).contains("\"" + QuoteLedger.LISTENER + "\":{\"policy\":\"ledger\"")
			.contains("\"alerting\":true");
		// Boot leaves OUTAGE out of the application's aggregate.
		assertThat(this.http.get("/actuator/health", String.class).getBody()).endsWith("\"status\":\"UP\"}");
		this.traffic.outageEnds();
		assertThat(this.http.prometheusSum("backoff_kafka_paused_partitions", listener)).isZero();
		assertThat(this.http.prometheusSum("backoff_kafka_paused_seconds", listener)).isZero();
		assertThat(this.http.prometheusSum("backoff_kafka_probes_total", listener + ",outcome=\"success\""))
			.isGreaterThan(probeSuccesses);
		assertThat(health()).contains("\"status\":\"UP\"");
	}

	private String health() {
		return this.http.get("/actuator/health/backoffKafkaOutages", String.class).getBody();
	}

	@Test
	void everyMetricLabelAndValueThatTheDashboardAndTheRulesUseIsInTheScrape() {
		this.traffic.produceEveryOutcomeOnce();
		Scrape scrape = new Scrape(this.http.prometheusScrape());
		for (Query query : MonitoringFiles.allQueries()) {
			assertThat(problems(query.expr(), scrape)).as(query.name()).isEmpty();
		}
		for (MonitoringFiles.Variable variable : MonitoringFiles.variables()) {
			assertThat(problems("sum by (" + variable.label() + ") (" + variable.selector() + ")", scrape))
				.as("variable " + variable.name())
				.isEmpty();
		}
	}

	@Test
	void aRenamedMetricLabelOrValueIsFound() {
		this.traffic.produceEveryOutcomeOnce();
		Scrape scrape = new Scrape(this.http.prometheusScrape());
		String panel = MonitoringFiles.panelQueries().get(0).expr();
		assertThat(problems(panel, scrape)).isEmpty();
		assertThat(problems(panel.replace("backoff_calls_total", "backoff_call_total"), scrape))
			.containsExactly("no metric backoff_call_total");
		assertThat(problems(panel.replace("by (policy, outcome)", "by (policy, result)"), scrape))
			.containsExactly("no label result on backoff_calls_total");
		assertThat(problems("rate(backoff_calls_total{outcome=\"gave_up\"}[5m])", scrape))
			.containsExactly("no backoff_calls_total{outcome=\"gave_up\"}");
	}

	@Test
	void everyPanelSaysWhatToDoAndEveryRuleNamesThePolicyAndTheMethod() {
		for (JsonNode panel : MonitoringFiles.dashboard().get("panels")) {
			if (!"row".equals(panel.get("type").asString())) {
				assertThat(panel.path("description").asString()).as(panel.get("title").asString()).contains("Red ");
				assertThat(panel.get("datasource").get("uid").asString()).isEqualTo("${datasource}");
				assertThat(panel.get("targets")).isNotEmpty();
			}
		}
		for (Map<String, Object> rule : MonitoringFiles.rules()) {
			@SuppressWarnings("unchecked")
			Map<String, String> annotations = (Map<String, String>) rule.get("annotations");
			assertThat(annotations.get("summary")).contains("$labels.method").contains("$labels.policy");
			assertThat(annotations.get("description")).contains("$labels.method").contains("$labels.policy");
		}
	}

	private Map<Outcome, Double> outcomes() {
		Map<Outcome, Double> counts = new LinkedHashMap<>();
		for (Outcome outcome : Outcome.values()) {
			counts.put(outcome, this.http.prometheusSum("backoff_calls_total", "outcome=\"" + outcome.tagValue() + "\""));
		}
		return counts;
	}

	/**
	 * @return what a query takes that the scrape lacks: a metric, a label on it, a value of the
	 * label. {@code instance} and {@code job} are Prometheus's own labels, not in a scrape.
	 */
	static List<String> problems(String expr, Scrape scrape) {
		List<String> problems = new ArrayList<>();
		for (Use use : PromqlUses.of(expr)) {
			if (!scrape.has(use.metric())) {
				problems.add("no metric " + use.metric());
				continue;
			}
			use.labels().forEach((label, expected) -> {
				if (label.equals("instance") || label.equals("job")) {
					return;
				}
				Set<String> found = scrape.values(use.metric(), label);
				if (found.isEmpty()) {
					problems.add("no label " + label + " on " + use.metric());
				}
				for (String value : expected) {
					if (!found.isEmpty() && !found.contains(value)) {
						problems.add("no " + use.metric() + "{" + label + "=\"" + value + "\"}");
					}
				}
			});
		}
		return problems.stream().distinct().toList();
	}

}
