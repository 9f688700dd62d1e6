package dev.backoff.sample;

import java.net.URI;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import tools.jackson.databind.JsonNode;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;
import org.springframework.web.util.UriComponentsBuilder;

/**
 * Real HTTP to the running application: answers come back as they are, whatever their status,
 * for the test to check.
 */
public final class SampleHttp {

	/** {@code backoff.policies.downstream.budget.max-tokens} in application.yml. */
	public static final double DOWNSTREAM_MAX_TOKENS = 20;

	private static final Pattern SAMPLE = Pattern.compile("^(\\w+)\\{([^}]*)\\}\\s+(\\S+)");

	private final String baseUrl;

	private final RestClient client;

	public SampleHttp(int port) {
		this.baseUrl = "http://localhost:" + port;
		this.client = RestClient.builder()
			.baseUrl(this.baseUrl)
			.defaultStatusHandler((status) -> true, (request, response) -> {
			})
			.build();
	}

	public <T> ResponseEntity<T> get(String path, Class<T> type) {
		return this.client.get().uri(uri(path)).retrieve().toEntity(type);
	}

	public <T> ResponseEntity<T> post(String path, Class<T> type) {
		return this.client.post().uri(uri(path)).retrieve().toEntity(type);
	}

	/**
	 * @param path the path to post to
	 * @param json the request body, sent as {@code application/json}
	 * @return the answer, whatever its status, with its body as JSON (or {@code null} for none)
	 */
	public ResponseEntity<JsonNode> postJson(String path, String json) {
		return this.client.post()
			.uri(uri(path))
			.contentType(MediaType.APPLICATION_JSON)
			.body(json)
			.retrieve()
			.toEntity(JsonNode.class);
	}

	/**
	 * @param path the path to delete
	 * @return the answer, whatever its status, with its body as JSON (or {@code null} for none)
	 */
	public ResponseEntity<JsonNode> deleteJson(String path) {
		return this.client.delete().uri(uri(path)).retrieve().toEntity(JsonNode.class);
	}

	public ResponseEntity<Void> delete(String path) {
		return this.client.delete().uri(uri(path)).retrieve().toBodilessEntity();
	}

	/**
	 * @param name a meter name
	 * @param tags {@code key:value} filters, as the metrics endpoint takes them
	 * @return the meter's COUNT, summed over the matching meters; 0 if none exists yet
	 */
	public double metricCount(String name, String... tags) {
		return metric("COUNT", name, tags);
	}

	/**
	 * @param statistic the statistic to read: {@code COUNT}, {@code MAX}, {@code VALUE} (a gauge), …
	 * @param name a meter name
	 * @param tags {@code key:value} filters, as the metrics endpoint takes them
	 * @return the statistic, summed over the matching meters; 0 if none exists yet
	 */
	public double metric(String statistic, String name, String... tags) {
		UriComponentsBuilder uri = UriComponentsBuilder.fromUriString(this.baseUrl + "/actuator/metrics/" + name);
		for (String tag : tags) {
			uri.queryParam("tag", tag);
		}
		ResponseEntity<JsonNode> response = this.client.get().uri(uri.build().toUri()).retrieve().toEntity(JsonNode.class);
		if (response.getStatusCode() == HttpStatus.NOT_FOUND) {
			return 0;
		}
		for (JsonNode measurement : response.getBody().get("measurements")) {
			if (statistic.equals(measurement.get("statistic").asString())) {
				return measurement.get("value").asDouble();
			}
		}
		throw new AssertionError("No " + statistic + " in " + response.getBody());
	}

	/**
	 * @param sample a Prometheus sample name, such as {@code backoff_retries_total}
	 * @param label a label that every counted line must carry, such as {@code method="QuoteClient.fetch"}
	 * @return the sum of the matching lines of {@code /actuator/prometheus}
	 */
	public double prometheusSum(String sample, String label) {
		double sum = 0;
		for (String line : prometheusScrape().split("\n")) {
			Matcher matcher = SAMPLE.matcher(line);
			if (matcher.find() && matcher.group(1).equals(sample) && matcher.group(2).contains(label)) {
				sum += Double.parseDouble(matcher.group(3));
			}
		}
		return sum;
	}

	/** @return {@code /actuator/prometheus} in Prometheus's text format */
	public String prometheusScrape() {
		return this.client.get().uri(uri("/actuator/prometheus")).accept(MediaType.TEXT_PLAIN).retrieve().body(String.class);
	}

	private URI uri(String path) {
		return URI.create(this.baseUrl + path);
	}

}
