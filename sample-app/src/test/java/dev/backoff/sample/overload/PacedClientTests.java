package dev.backoff.sample.overload;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;

import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.NanoClock;
import dev.backoff.OverloadControls;
import dev.backoff.Pacing;
import dev.backoff.sample.SampleAppTest;
import dev.backoff.sample.SampleHttp;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pacing over real HTTP: the sample's downstream accepts {@value #LIMIT} requests a second and
 * answers the rest 429; a client offering twice that, each call one attempt under a policy with
 * pacing (the core's {@link OverloadControls} on a real clock, the waits on a scheduler), wakes
 * its pace at the first 429: from then on the downstream accepts its rate, and the 429s fall
 * second by second, where an unpaced client would get {@code OFFERED - LIMIT} a second. Measured
 * here: accepted 39, 20, 20, 20, 20, 20 and 429s 1, 18, 15, 14, 12, 10 in the six seconds (the
 * pace cuts by at most 15 % a second, so it nears the limit over several seconds).
 */
@SampleAppTest
class PacedClientTests {

	/** The downstream's requests a second. */
	private static final int LIMIT = 20;

	/** The client's calls a second: twice the limit. */
	private static final int OFFERED = 2 * LIMIT;

	private static final int SECONDS = 6;

	@LocalServerPort
	private int port;

	@Test
	void aPacedClientOfferingTwiceTheDownstreamsRateConvergesToIt() throws Exception {
		SampleHttp http = new SampleHttp(this.port);
		http.delete("/downstream/stats");
		assertThat(http.post("/downstream/rate-limit?perSecond=" + LIMIT, String.class).getStatusCode())
			.isEqualTo(HttpStatus.OK);
		AtomicIntegerArray accepted = new AtomicIntegerArray(SECONDS);
		AtomicIntegerArray throttled = new AtomicIntegerArray(SECONDS);
		try {
			run(accepted, throttled);
		}
		finally {
			http.delete("/downstream/stats");
		}
		String seen = "accepted " + accepted + ", throttled " + throttled + " a second";
		// What docs/benchmarks.md quotes, kept for the run at hand.
		Path report = Path.of("target", "paced-client.txt");
		Files.createDirectories(report.getParent());
		Files.writeString(report, seen + "\n");
		// The first second goes on the bucket's burst; the first 429 wakes the pace.
		assertThat(throttled.get(0) + throttled.get(1)).as(seen).isPositive();
		// The downstream's rate followed closely: in the last two seconds it accepts about its limit...
		double acceptedRate = (accepted.get(SECONDS - 2) + accepted.get(SECONDS - 1)) / 2.0;
		assertThat(acceptedRate).as(seen).isBetween(0.9 * LIMIT, 1.05 * LIMIT);
		// ...while the 429s fall: fewer than in the second after the first 429, and fewer than the
		// OFFERED - LIMIT a second an unpaced client gets.
		double throttledRate = (throttled.get(SECONDS - 2) + throttled.get(SECONDS - 1)) / 2.0;
		assertThat(throttledRate).as(seen).isLessThan(0.8 * throttled.get(1));
		assertThat(throttledRate).as(seen).isLessThan(0.75 * (OFFERED - LIMIT));
	}

	/** Offers {@value #OFFERED} calls a second for {@value #SECONDS} s, counting the answers by the second they came. */
	private void run(AtomicIntegerArray accepted, AtomicIntegerArray throttled) throws InterruptedException {
		BackoffPolicy policy = BackoffPolicy.builder().maxAttempts(1).throttleOn(TooManyRequests.class).build();
		OverloadControls controls = new OverloadControls(null, true, new Pacing(NanoClock.SYSTEM));
		BackoffExecutor executor = BackoffExecutor.builder().build();
		ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
		HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		HttpRequest request = HttpRequest
			.newBuilder(URI.create("http://localhost:" + this.port + "/downstream/quotes/ACME"))
			.build();
		List<CompletableFuture<?>> calls = new ArrayList<>();
		long start = System.nanoTime();
		long interval = TimeUnit.SECONDS.toNanos(1) / OFFERED;
		try {
			for (int i = 0; i < OFFERED * SECONDS; i++) {
				long due = start + i * interval;
				for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
					LockSupport.parkNanos(wait);
				}
				calls.add(executor.executeAsync(controls.start(executor, policy, null, BackoffListener.NONE, null), null, null,
						() -> client.sendAsync(request, HttpResponse.BodyHandlers.discarding()).thenApply((response) -> {
							int second = (int) ((System.nanoTime() - start) / TimeUnit.SECONDS.toNanos(1));
							boolean refused = response.statusCode() == HttpStatus.TOO_MANY_REQUESTS.value();
							if (second < SECONDS) {
								(refused ? throttled : accepted).incrementAndGet(second);
							}
							if (refused) {
								throw new CompletionException(new TooManyRequests());
							}
							return response;
						}), scheduler));
			}
			LockSupport.parkNanos(start + TimeUnit.SECONDS.toNanos(SECONDS) - System.nanoTime());
		}
		finally {
			// The calls still waiting for their slots: the client offers more than it may send.
			calls.forEach((call) -> call.cancel(true));
			scheduler.shutdownNow();
		}
	}

	/** A 429, which the policy classifies as throttling. */
	@SuppressWarnings("serial")
	static final class TooManyRequests extends IOException {

	}

}
