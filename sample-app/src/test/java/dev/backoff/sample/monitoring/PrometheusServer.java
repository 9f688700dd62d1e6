package dev.backoff.sample.monitoring;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.springframework.web.util.UriComponentsBuilder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real Prometheus (Debian's {@code prometheus} package, which {@code .ci/run} installs)
 * scraping the sample every {@value #INTERVAL}, with the rules file loaded, and its HTTP API.
 */
final class PrometheusServer implements AutoCloseable {

	static final String INTERVAL = "100ms";

	static final String JOB = "backoff-sample";

	private final Process process;

	private final String api;

	private final Path log;

	private final HttpClient client = HttpClient.newHttpClient();

	private PrometheusServer(Process process, int port, Path log) {
		this.process = process;
		this.api = "http://127.0.0.1:" + port;
		this.log = log;
	}

	/** @return the path of a program on the {@code PATH}, if there is one */
	static Optional<Path> onPath(String program) {
		return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
			.map((directory) -> Path.of(directory, program))
			.filter(Files::isExecutable)
			.findFirst();
	}

	static PrometheusServer start(Path prometheus, Path directory, int samplePort, Path rules) throws Exception {
		int port = freePort();
		Path config = directory.resolve("prometheus.yml");
		Files.writeString(config, """
				global:
				  scrape_interval: %1$s
				  scrape_timeout: %1$s
				  evaluation_interval: %1$s
				rule_files:
				  - %2$s
				scrape_configs:
				  - job_name: %3$s
				    metrics_path: /actuator/prometheus
				    static_configs:
				      - targets: ['127.0.0.1:%4$d']
				""".formatted(INTERVAL, rules.toAbsolutePath(), JOB, samplePort));
		Path log = directory.resolve("prometheus.log");
		Process process = new ProcessBuilder(prometheus.toString(), "--config.file=" + config,
				"--storage.tsdb.path=" + directory.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		PrometheusServer server = new PrometheusServer(process, port, log);
		server.awaitReady();
		return server;
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private void awaitReady() throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("Prometheus stopped: " + Files.readString(this.log));
			}
			try {
				if (get("/-/ready").statusCode() == 200) {
					return;
				}
			}
			catch (IOException ex) {
				// Not listening yet.
			}
			Thread.sleep(50);
		}
		throw new IllegalStateException("Prometheus not ready within 30s: " + Files.readString(this.log));
	}

	/**
	 * Waits until Prometheus has scraped the sample after this moment, and checks that the
	 * scrape succeeded (a scrape Prometheus cannot parse is dropped, and the queries would
	 * find nothing without saying why). A scrape that took longer than the scrape timeout on a
	 * busy machine is waited past: the next one counts (by the time the targets are read, its
	 * error may already be gone, a later scrape having succeeded).
	 */
	void awaitScrapeAfterNow() throws Exception {
		double now = System.currentTimeMillis() / 1000.0;
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (System.nanoTime() < deadline) {
			JsonNode result = query("timestamp(up{job=\"" + JOB + "\"})");
			if (!result.isEmpty() && value(result.get(0)) > now) {
				JsonNode up = query("up{job=\"" + JOB + "\"}");
				if (value(up.get(0)) != 1) {
					String targets = targets();
					// A scrape that timed out, its error still there or already replaced by a
					// later scrape's success; one Prometheus cannot parse fails every time.
					if (targets.contains("context deadline exceeded") || targets.contains("\"health\":\"up\"")) {
						now = value(result.get(0));
						continue;
					}
					throw new AssertionError("Prometheus failed to scrape the sample: " + targets);
				}
				return;
			}
			Thread.sleep(50);
		}
		throw new AssertionError("No scrape of the sample within 30s: " + targets());
	}

	/** @return the result vector of an instant query at the present moment */
	JsonNode query(String promql) throws Exception {
		JsonNode body = api("/api/v1/query", "query", promql);
		return body.get("data").get("result");
	}

	/** @return the values of a label over the series that match a selector */
	List<String> labelValues(String selector, String label) throws Exception {
		JsonNode body = api("/api/v1/label/" + label + "/values", "match[]", selector);
		List<String> values = new ArrayList<>();
		body.get("data").forEach((value) -> values.add(value.asString()));
		return values;
	}

	/** @return the alerts pending or firing, with their labels and rendered annotations */
	JsonNode alerts() throws Exception {
		return api("/api/v1/alerts", null, null).get("data").get("alerts");
	}

	/** @return the loaded rules, with their health and last error */
	JsonNode rules() throws Exception {
		return api("/api/v1/rules", null, null).get("data").get("groups");
	}

	String targets() throws Exception {
		return api("/api/v1/targets", null, null).get("data").toString();
	}

	static double value(JsonNode sample) {
		return Double.parseDouble(sample.get("value").get(1).asString());
	}

	private JsonNode api(String path, String parameter, String value) throws Exception {
		UriComponentsBuilder uri = UriComponentsBuilder.fromUriString(this.api + path);
		if (parameter != null) {
			uri.queryParam(parameter, "{value}");
		}
		HttpResponse<String> response = this.client.send(
				HttpRequest.newBuilder((parameter != null) ? uri.build(value) : uri.build().toUri()).build(),
				HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
		JsonNode body = JsonMapper.shared().readTree(response.body());
		if (!"success".equals(body.path("status").asString())) {
			throw new AssertionError("Prometheus refused " + path + " " + value + ": " + response.body());
		}
		return body;
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.client.send(HttpRequest.newBuilder(URI.create(this.api + path)).timeout(Duration.ofSeconds(5)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	@Override
	public void close() throws IOException, InterruptedException {
		this.process.destroy();
		if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
			this.process.destroyForcibly();
		}
	}

}
