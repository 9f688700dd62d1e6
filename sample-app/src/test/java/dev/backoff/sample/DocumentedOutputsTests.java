package dev.backoff.sample;

import java.util.Arrays;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What docs/endpoint.md and the sample's README show the sample answering, checked against a
 * fresh sample (a context of its own, real waits, DEBUG logging of {@code dev.backoff}): the
 * endpoint's listing and preview after one call that succeeded on its third attempt, exactly
 * (the preview's samples are seeded), and the DEBUG line of a retry.
 */
@SpringBootTest(classes = SampleApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "logging.level.dev.backoff=debug",
				// Its own in-memory database beside the other test contexts'.
				"spring.datasource.url=jdbc:h2:mem:backoff-sample-docs;DB_CLOSE_DELAY=-1" })
@DirtiesContext
@ExtendWith(OutputCaptureExtension.class)
class DocumentedOutputsTests {

	private static final String ENDPOINT_PAGE = "../docs/endpoint.md";

	@LocalServerPort
	private int port;

	@Test
	void theEndpointPageShowsTheListingAndThePreviewAfterACallThatSucceededOnItsThirdAttempt(CapturedOutput output) {
		SampleHttp http = new SampleHttp(this.port);
		http.post("/downstream/faults?failNext=2", String.class);
		assertThat(http.get("/quotes/ACME", String.class).getStatusCode()).isEqualTo(HttpStatus.OK);

		JsonNode shown = JsonMapper.shared().readTree(Docs.block(ENDPOINT_PAGE, "json", "\"nested\""));
		JsonNode listing = http.get("/actuator/backoff", JsonNode.class).getBody();
		// The page leaves the other policies out.
		((ObjectNode) listing.get("policies")).retain(shown.get("policies").propertyNames());
		assertThat(listing).isEqualTo(shown);

		JsonNode preview = http.get("/actuator/backoff/downstream", JsonNode.class).getBody();
		assertThat(preview).isEqualTo(JsonMapper.shared().readTree(Docs.block(ENDPOINT_PAGE, "json", "\"growth\"")));

		// The README's DEBUG line: its "…" stand for the exception's text, the delay is drawn.
		http.post("/downstream/faults?failNext=1&throttleNext=1&retryAfter=0", String.class);
		assertThat(http.get("/quotes/ACME", String.class).getStatusCode()).isEqualTo(HttpStatus.OK);
		String[] parts = debugLineOfTheReadme().replaceFirst("\\d+ms$", "").split("…", -1);
		String line = Arrays.stream(parts).map(Pattern::quote).collect(Collectors.joining(".*")) + "\\d+ms";
		assertThat(output.getAll()).containsPattern(line);

		// The page's recent events are those of the two calls, over real HTTP: the same fields
		// and values, but for the times and the drawn delays, which are one run's.
		JsonNode events = http.get("/actuator/backoff/downstream/events", JsonNode.class).getBody();
		JsonNode shownEvents = JsonMapper.shared().readTree(Docs.block(ENDPOINT_PAGE, "json", "\"retry-scheduled\""));
		assertThat(withoutTimesAndDelays(events)).as(events.toString()).isEqualTo(withoutTimesAndDelays(shownEvents));
	}

	private static JsonNode withoutTimesAndDelays(JsonNode events) {
		JsonNode copy = events.deepCopy();
		for (JsonNode event : copy.get("events")) {
			if (event.has("time")) {
				((ObjectNode) event).put("time", "…");
			}
			if (event.has("delay")) {
				((ObjectNode) event).put("delay", "…");
			}
		}
		return copy;
	}

	private static String debugLineOfTheReadme() {
		String readme = Docs.read("README.md");
		int start = readme.indexOf("`@Backoff(downstream) QuoteClient.fetch: attempt");
		assertThat(start).as("the DEBUG line in the sample's README").isNotNegative();
		return readme.substring(start + 1, readme.indexOf('`', start + 1));
	}

}
