package dev.backoff.sample.monitoring;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The set-up docs/observability.md gives for Prometheus and the application fills the
 * dashboard: its {@code prometheus.yml} scrapes often enough for {@code rate()} over Grafana's
 * {@code $__rate_interval} (at least 1 minute with Grafana's default scrape interval of 15 s),
 * and its {@code application} tag has a default where {@code spring.application.name} is unset.
 */
class PrometheusSetupDocTests {

	private static final Path PAGE = Path.of("..", "docs", "observability.md");

	@Test
	void thePrometheusConfigurationScrapesAtLeastFourTimesAMinute() throws IOException {
		Map<String, Object> config = new Yaml().load(block("rule_files:"));
		@SuppressWarnings("unchecked")
		Map<String, Object> global = (Map<String, Object>) config.get("global");
		assertThat(global).as("the global section of the documented prometheus.yml").isNotNull();
		Duration interval = Duration.parse("PT" + global.get("scrape_interval").toString().toUpperCase());
		// rate() needs two samples in its window; Grafana's $__rate_interval is 4 scrape intervals, 1m at least.
		assertThat(interval.multipliedBy(4)).isLessThanOrEqualTo(Duration.ofMinutes(1));
		assertThat(MonitoringFiles.panelQueries()).anyMatch((query) -> query.expr().contains("$__rate_interval"));
	}

	@Test
	void theApplicationTagHasADefault() throws IOException {
		String tags = block("percentiles-histogram:");
		assertThat(tags).containsPattern("application: \\$\\{spring\\.application\\.name:[^}]+}");
	}

	private static String block(String containing) throws IOException {
		List<String> found = new ArrayList<>();
		StringBuilder block = null;
		for (String line : Files.readAllLines(PAGE, StandardCharsets.UTF_8)) {
			if (block == null && line.equals("```yaml")) {
				block = new StringBuilder();
			}
			else if (block != null && line.equals("```")) {
				if (block.indexOf(containing) >= 0) {
					found.add(block.toString());
				}
				block = null;
			}
			else if (block != null) {
				block.append(line).append('\n');
			}
		}
		assertThat(found).as("yaml blocks of %s containing %s", PAGE, containing).hasSize(1);
		return found.get(0);
	}

}
