package dev.backoff.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.aot.DisabledInAotMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Replays the tour of {@code sample-app/README.md} ("Try it", scenarios 1 to 3) against the
 * application as {@code spring-boot:run} starts it (a context of its own, fresh, with its own
 * database, without the test profile and with real waits) and compares every command's output with what the README
 * shows, so that a change that alters one fails the build until the README changes too.
 *
 * <p>The rules:
 * <ul>
 * <li>In the README's {@code shell} blocks, a line starting with {@code $ } is a command; the
 * lines after it, up to the next command, comment or blank line, are its output. The commands
 * run in order, all in the one context. A command with no output shown must print nothing.</li>
 * <li>{@code curl} runs as curl does: {@code -X} the method, {@code -s} silent,
 * {@code -o /dev/null} no output, the body printed whatever the status, {@code localhost:8080}
 * the server's port. {@code | grep 'regex'} keeps the matching lines (a basic regular
 * expression), {@code for i in $(seq N); do …; done} runs its command N times.</li>
 * <li>Two things differ on every run and match whatever the service gives: a UUID (a job's id),
 * bound at its first appearance in an output and put in place of the README's in the commands
 * after it; a timer's {@code TOTAL_TIME}, a sum of jittered waits; and a recent event's
 * {@code time}.</li>
 * <li>Scenario 4, the contention experiment, shows one run's table rather than an output; its
 * answer is checked by {@link ContentionExperimentTests}.</li>
 * </ul>
 */
@SpringBootTest(classes = SampleApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		// Its own in-memory database, fresh as at a first start, beside the other test contexts'.
		properties = "spring.datasource.url=jdbc:h2:mem:backoff-sample-tour;DB_CLOSE_DELAY=-1")
@DirtiesContext
// Beside the other classes (junit-platform.properties): its real waits leave the machine idle.
@Execution(ExecutionMode.CONCURRENT)
// Not run against the AOT-processed context (sample-app/pom.xml says why): nor is its context
// processed at build time, for nothing.
@DisabledInAotMode
class TourTests {

	private static final Pattern UUID = Pattern
		.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

	private static final Pattern LOOP = Pattern.compile("for i in \\$\\(seq (\\d+)\\); do (.+); done");

	private static final Pattern TOTAL_TIME = Pattern.compile("(\"statistic\":\"TOTAL_TIME\",\"value\":)[-0-9.E]+");

	private static final Pattern EVENT_TIME = Pattern.compile("(\"time\":)\"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z\"");

	private static final Pattern COMMENT = Pattern.compile("\\s+#\\s.*$");

	@LocalServerPort
	private int port;

	private final HttpClient client = HttpClient.newHttpClient();

	/** The README's UUIDs and the service's, both ways. */
	private final Map<String, String> ids = new HashMap<>();

	private final Map<String, String> readmeIds = new HashMap<>();

	@Test
	void everyCommandOfTheTourPrintsWhatTheReadmeShows() throws Exception {
		List<Step> tour = tour(Docs.read("README.md"));
		// Scenarios 1 to 3 hold 37 commands; far fewer means the parsing lost some.
		assertThat(tour).hasSizeGreaterThan(30);
		List<String> differences = new ArrayList<>();
		for (Step step : tour) {
			String actual = normalize(bind(step.output(), run(step.command())));
			String expected = normalize(step.output());
			if (!actual.equals(expected)) {
				differences.add(String.format("README.md:%d $ %s%n  README shows: %s%n  the service: %s", step.line(),
						step.command(), expected, actual));
			}
		}
		assertThat(differences).as("commands of the tour whose output differs from the README's").isEmpty();
	}

	@Test
	void theParsingFindsCommandsOutputsAndTheirEnd() {
		String readme = """
				## Try it

				```shell
				$ curl localhost:8080/a            # a comment
				{"a":1}
				second line

				# a comment
				$ curl -X DELETE localhost:8080/b
				```

				```java
				$ not a command
				```

				### 4. The contention experiment

				```shell
				$ curl -X POST 'localhost:8080/experiments/contention?clients=50'
				```
				""";
		assertThat(tour(readme)).containsExactly(new Step(4, "curl localhost:8080/a", List.of("{\"a\":1}", "second line")),
				new Step(9, "curl -X DELETE localhost:8080/b", List.of()));
	}

	/** The commands of scenarios 1 to 3, each with the output the README shows. */
	static List<Step> tour(String readme) {
		List<Step> steps = new ArrayList<>();
		String[] lines = readme.split("\n", -1);
		boolean inTour = false;
		boolean inShell = false;
		Step current = null;
		for (int i = 0; i < lines.length; i++) {
			String line = lines[i];
			if (line.startsWith("## ")) {
				inTour = line.equals("## Try it");
			}
			else if (line.startsWith("### 4.")) {
				inTour = false;
			}
			if (!inTour) {
				continue;
			}
			if (line.startsWith("```")) {
				inShell = !inShell && line.equals("```shell");
				current = null;
			}
			else if (inShell && line.startsWith("$ ")) {
				current = new Step(i + 1, COMMENT.matcher(line.substring(2)).replaceFirst(""), new ArrayList<>());
				steps.add(current);
			}
			else if (inShell && (line.isBlank() || line.startsWith("#"))) {
				current = null;
			}
			else if (inShell && current != null) {
				current.output().add(line);
			}
		}
		return steps.stream().map((step) -> new Step(step.line(), step.command(), List.copyOf(step.output()))).toList();
	}

	private String run(String command) throws IOException, InterruptedException {
		Matcher loop = LOOP.matcher(command);
		if (loop.matches()) {
			StringBuilder out = new StringBuilder();
			for (int i = Integer.parseInt(loop.group(1)); i > 0; i--) {
				out.append(run(loop.group(2)));
			}
			return out.toString();
		}
		String grep = null;
		int pipe = command.indexOf(" | grep ");
		if (pipe >= 0) {
			grep = unquote(command.substring(pipe + " | grep ".length()).trim());
			command = command.substring(0, pipe);
		}
		List<String> args = words(command);
		assertThat(args.get(0)).as(command).isEqualTo("curl");
		String method = "GET";
		boolean discard = false;
		String url = null;
		for (int i = 1; i < args.size(); i++) {
			switch (args.get(i)) {
				case "-X" -> method = args.get(++i);
				case "-s" -> {
				}
				case "-o" -> {
					assertThat(args.get(++i)).as(command).isEqualTo("/dev/null");
					discard = true;
				}
				default -> {
					assertThat(args.get(i)).as("an option this replay does not know, in: " + command).doesNotStartWith("-");
					url = args.get(i);
				}
			}
		}
		assertThat(url).as(command).startsWith("localhost:8080/");
		for (Map.Entry<String, String> id : this.ids.entrySet()) {
			url = url.replace(id.getKey(), id.getValue());
		}
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + url.replace("8080", "" + this.port)))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.header("Accept", "*/*")
			.build();
		String body = this.client.send(request, HttpResponse.BodyHandlers.ofString()).body();
		if (discard) {
			return "";
		}
		if (grep != null) {
			Pattern pattern = Pattern.compile(basicRegex(grep));
			body = body.lines().filter((line) -> pattern.matcher(line).find()).collect(Collectors.joining("\n"));
		}
		return body;
	}

	/**
	 * The service's output with the service's UUIDs replaced by the README's: each bound, in
	 * order, to the one at the same place in the README's output the first time it appears.
	 */
	private String bind(List<String> shown, String actual) {
		List<String> expected = UUID.matcher(String.join("\n", shown)).results().map((match) -> match.group()).toList();
		List<String> given = UUID.matcher(actual).results().map((match) -> match.group()).toList();
		for (int i = 0; i < Math.min(expected.size(), given.size()); i++) {
			if (!this.ids.containsKey(expected.get(i)) && !this.readmeIds.containsKey(given.get(i))) {
				this.ids.put(expected.get(i), given.get(i));
				this.readmeIds.put(given.get(i), expected.get(i));
			}
		}
		for (Map.Entry<String, String> id : this.readmeIds.entrySet()) {
			actual = actual.replace(id.getKey(), id.getValue());
		}
		return actual;
	}

	private static String normalize(List<String> lines) {
		return normalize(String.join("\n", lines));
	}

	private static String normalize(String output) {
		String waits = TOTAL_TIME.matcher(output.strip()).replaceAll("$1<a sum of jittered waits>");
		return EVENT_TIME.matcher(waits).replaceAll("$1<an event's time>");
	}

	/** The words of a command, as a shell splits them: single quotes kept together. */
	static List<String> words(String command) {
		List<String> words = new ArrayList<>();
		StringBuilder word = null;
		boolean quoted = false;
		for (char c : command.toCharArray()) {
			if (c == '\'') {
				quoted = !quoted;
				word = (word != null) ? word : new StringBuilder();
			}
			else if (c == ' ' && !quoted) {
				if (word != null) {
					words.add(word.toString());
					word = null;
				}
			}
			else {
				word = (word != null) ? word : new StringBuilder();
				word.append(c);
			}
		}
		if (word != null) {
			words.add(word.toString());
		}
		return words;
	}

	private static String unquote(String word) {
		List<String> words = words(word);
		assertThat(words).as(word).hasSize(1);
		return words.get(0);
	}

	/** A grep basic regular expression as a Java one: there, braces, parentheses, + ? | are plain. */
	private static String basicRegex(String grep) {
		return grep.replaceAll("([{}()+?|])", "\\\\$1");
	}

	/** A command of the tour, at its README line, with the output the README shows. */
	record Step(int line, String command, List<String> output) {
	}

}
