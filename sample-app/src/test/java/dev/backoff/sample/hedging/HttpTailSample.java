package dev.backoff.sample.hedging;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.backoff.sample.SampleApplication;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The sample application, started in this JVM on a random port (or one running already), and
 * its downstream's faults and counts, read and set over HTTP as a user would.
 */
public final class HttpTailSample implements AutoCloseable {

	private static final Pattern NUMBER = Pattern.compile("\"(\\w+)\":(-?[0-9.]+)");

	/** The sample this started, or {@code null} for one running already. */
	private final @Nullable ConfigurableApplicationContext context;

	private final URI base;

	private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	private HttpTailSample(@Nullable ConfigurableApplicationContext context, int port) {
		this.context = context;
		this.base = URI.create("http://localhost:" + port + "/");
	}

	/**
	 * @param port the port of a sample running already
	 * @return it
	 */
	public static HttpTailSample at(int port) {
		return new HttpTailSample(null, port);
	}

	/**
	 * Starts the sample.
	 * @param seed the downstream's dice ({@code sample.downstream.seed})
	 * @return the running sample
	 */
	public static HttpTailSample start(long seed) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class).properties(
				"server.port=0", "sample.downstream.seed=" + seed, "spring.main.banner-mode=off",
				"logging.level.root=WARN",
				// Its own database, beside any other instance in this JVM.
				"spring.datasource.url=jdbc:h2:mem:http-tail-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1",
				// The sample traces every request; spans would only add work to the same 2 cores.
				"management.tracing.sampling.probability=0")
			.run();
		return new HttpTailSample(context,
				Integer.parseInt(context.getEnvironment().getRequiredProperty("local.server.port")));
	}

	/** @return the URI of the downstream's quote that the calls fetch */
	public URI quote() {
		return this.base.resolve("downstream/quotes/ACME");
	}

	/**
	 * Clears the downstream's faults and counts (and re-seeds its dice), then sets the tail.
	 * @param slowRate the share of answers delayed
	 * @param slowDelay by how much
	 */
	public void resetWithTail(double slowRate, Duration slowDelay) {
		send("DELETE", "downstream/stats");
		send("POST", "downstream/faults?slowRate=" + slowRate + "&slowDelay=" + slowDelay.toMillis() + "ms");
	}

	/**
	 * The downstream's counts once they stop changing: a cancelled copy may still be on its way
	 * to the server when the last call ends.
	 * @return the requests the downstream received, and the slow ones among them
	 */
	public Stats settledStats() {
		Stats last = stats();
		long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
		while (System.nanoTime() < deadline) {
			sleep(Duration.ofMillis(100));
			Stats now = stats();
			if (now.equals(last)) {
				return now;
			}
			last = now;
		}
		return last;
	}

	Stats stats() {
		String json = send("GET", "downstream/stats");
		Matcher matcher = NUMBER.matcher(json);
		long requests = -1;
		long slow = -1;
		while (matcher.find()) {
			switch (matcher.group(1)) {
				case "requests" -> requests = Long.parseLong(matcher.group(2));
				case "slow" -> slow = Long.parseLong(matcher.group(2));
				default -> {
				}
			}
		}
		if (requests < 0 || slow < 0) {
			throw new IllegalStateException("Unexpected /downstream/stats: " + json);
		}
		return new Stats(requests, slow);
	}

	private String send(String method, String path) {
		HttpRequest request = HttpRequest.newBuilder(this.base.resolve(path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build();
		try {
			var response = this.client.send(request, BodyHandlers.ofString());
			if (response.statusCode() >= 300) {
				throw new IllegalStateException(method + " /" + path + " answered " + response.statusCode() + ": "
						+ response.body());
			}
			return response.body();
		}
		catch (IOException ex) {
			throw new IllegalStateException(method + " /" + path + " failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(method + " /" + path + " interrupted", ex);
		}
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		if (this.context != null) {
			this.context.close();
		}
	}

	/**
	 * What the downstream counted.
	 * @param requests the requests it received
	 * @param slow those it answered late
	 */
	public record Stats(long requests, long slow) {
	}

}
