package dev.backoff.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.backoff.BackoffListener;
import dev.backoff.Outcome;
import dev.backoff.sample.downstream.DownstreamFaults.StatsView;
import dev.backoff.spring.config.DurationFormat;
import dev.backoff.spring.operation.BackoffListenerFactory;
import dev.backoff.spring.operation.BackoffOperation;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.context.aot.DisabledInAotMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Changing the {@code downstream} policy while the service runs, over real HTTP through
 * {@code POST} and {@code DELETE /actuator/backoff/downstream}, with the write access that the
 * endpoint refuses by default switched on. Each call of {@code QuoteClient.fetch} is recorded
 * by a listener as it ends (its attempts and its waits), so that a call's settings can be told
 * from another's.
 */
@SampleAppTest
@TestPropertySource(properties = { "management.endpoint.backoff.access=unrestricted",
		// A second context beside the shared one: its own in-memory database.
		"spring.datasource.url=jdbc:h2:mem:backoff-sample-live;DB_CLOSE_DELAY=-1" })
@Import(LivePoliciesTests.QuoteCalls.class)
@ExtendWith(OutputCaptureExtension.class)
// Not run against the AOT-processed context (sample-app/pom.xml says why): nor is its context
// processed at build time, for nothing.
@DisabledInAotMode
class LivePoliciesTests {

	private static final String POLICY = "/actuator/backoff/downstream";

	/** The page that shows the answer and the INFO line, section "Live policies". */
	private static final String ENDPOINT_PAGE = "../docs/endpoint.md";

	@LocalServerPort
	private int port;

	@Autowired
	private QuoteCalls quoteCalls;

	private SampleHttp http;

	@BeforeEach
	void startAsConfiguredWithAFullBudget() {
		this.http = new SampleHttp(this.port);
		this.http.delete("/downstream/stats");
		this.http.delete(POLICY);
		this.http.delete("/downstream/stats");
		this.quoteCalls.clear();
	}

	@AfterEach
	void leaveItAsConfigured() {
		this.http.delete("/downstream/stats");
		this.http.delete(POLICY);
	}

	@Test
	void theChangeAnswersWithWhatChangedAndTheSettingsInForce(CapturedOutput output) {
		ResponseEntity<JsonNode> change = this.http.postJson(POLICY, "{\"maxAttempts\": 1}");
		assertThat(change.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(change.getBody())
			.isEqualTo(JsonMapper.shared().readTree(Docs.block(ENDPOINT_PAGE, "json", "\"changes\"")));
		Matcher logged = Pattern.compile("`(Backoff policy 'downstream' changed by POST [^`]*)`")
			.matcher(Docs.read(ENDPOINT_PAGE));
		assertThat(logged.find()).as("the INFO line on the endpoint page").isTrue();
		assertThat(output.getAll()).contains(" INFO ").contains(logged.group(1) + "\n");
		JsonNode listed = this.http.get("/actuator/backoff", JsonNode.class).getBody().get("policies");
		assertThat(listed.get("downstream").get("changes"))
			.isEqualTo(JsonMapper.shared().readTree("{\"maxAttempts\": {\"from\": 4, \"to\": 1}}"));
		assertThat(listed.get("optimistic").has("changes")).isFalse();
		ResponseEntity<JsonNode> reset = this.http.deleteJson(POLICY);
		assertThat(reset.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(reset.getBody().get("settings").get("maxAttempts").asInt()).isEqualTo(4);
		assertThat(this.http.get("/actuator/backoff", JsonNode.class).getBody().get("policies").get("downstream")
			.has("changes")).isFalse();
	}

	@Test
	void theHedgedReadsCapChangesLiveAndAShareOutOfRangeIsRefused() {
		String reads = "/actuator/backoff/reads";
		try {
			ResponseEntity<JsonNode> change = this.http.postJson(reads, "{\"hedgeMaxExtraLoad\": 0.1}");
			assertThat(change.getStatusCode()).isEqualTo(HttpStatus.OK);
			assertThat(change.getBody().get("changes")).isEqualTo(JsonMapper.shared()
				.readTree("{\"reads\": {\"hedgeMaxExtraLoad\": {\"from\": 0.05, \"to\": 0.1}}}"));
			assertThat(change.getBody().get("settings").get("hedgeMaxExtraLoad").asDouble()).isEqualTo(0.1);
			ResponseEntity<JsonNode> invalid = this.http.postJson(reads, "{\"hedgeMaxExtraLoad\": 0}");
			assertThat(invalid.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
			assertThat(invalid.getBody().get("property").asString())
				.isEqualTo("backoff.policies.reads.hedge-max-extra-load");
		}
		finally {
			this.http.delete(reads);
		}
		assertThat(this.http.get("/actuator/backoff", JsonNode.class).getBody().get("policies").get("reads")
			.get("settings").get("hedgeMaxExtraLoad").asDouble()).isEqualTo(0.05);
	}

	@Test
	void maxAttemptsFrom4To1DuringAPartialOutageMakesTheNextCallsOneAttemptEach() {
		setFaults("failureRate=0.5");
		for (int i = 0; i < 20; i++) {
			this.http.get("/quotes/ACME", String.class);
		}
		// Retried under 4 attempts: more downstream requests than calls.
		assertThat(stats().requests()).isGreaterThan(20);
		assertThat(this.quoteCalls.attempts()).anyMatch((attempts) -> attempts > 1);
		ResponseEntity<JsonNode> change = this.http.postJson(POLICY, "{\"maxAttempts\": 1}");
		assertThat(change.getStatusCode()).isEqualTo(HttpStatus.OK);
		this.quoteCalls.clear();
		long requestsBefore = stats().requests();
		int failed = 0;
		for (int i = 0; i < 20; i++) {
			if (this.http.get("/quotes/ACME", String.class).getStatusCode() == HttpStatus.BAD_GATEWAY) {
				failed++;
			}
		}
		// Still a partial outage, and each call made exactly one request.
		assertThat(failed).isBetween(1, 19);
		assertThat(stats().requests() - requestsBefore).isEqualTo(20);
		assertThat(this.quoteCalls.attempts()).hasSize(20).containsOnly(1);
	}

	@Test
	void anInvalidBodyAnswers400AndChangesNothing() {
		ResponseEntity<JsonNode> invalid = this.http.postJson(POLICY, "{\"maxAttempts\": 2, \"maxDelay\": \"50ms\"}");
		assertThat(invalid.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
		JsonNode body = invalid.getBody();
		assertThat(body.get("property").asString()).isEqualTo("backoff.policies.downstream.max-delay");
		assertThat(body.get("value").asString()).isEqualTo("50ms");
		assertThat(body.get("message").asString())
			.isEqualTo("backoff.policies.downstream.max-delay was '50ms', but " + body.get("rule").asString() + ". "
					+ "Update backoff.policies.downstream.max-delay: it " + body.get("rule").asString() + ".");
		ResponseEntity<JsonNode> unparsable = this.http.postJson(POLICY, "{\"baseDelay\": \"soon\"}");
		assertThat(unparsable.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
		assertThat(unparsable.getBody().get("rule").asString())
			.isEqualTo("must be a duration such as 250ms, 2s, 1m or PT0.5S");
		JsonNode unchanged = this.http.get("/actuator/backoff", JsonNode.class).getBody().get("policies")
			.get("downstream");
		assertThat(unchanged.get("settings").get("maxAttempts").asInt()).isEqualTo(4);
		assertThat(unchanged.has("changes")).isFalse();
		// A typo beside a valid key: the whole body is refused, naming the key.
		ResponseEntity<JsonNode> typo = this.http.postJson(POLICY, "{\"maxAttempts\": 2, \"maxAtempts\": 9}");
		assertThat(typo.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
		assertThat(typo.getBody().get("property").asString()).isEqualTo("maxAtempts");
		assertThat(typo.getBody().get("message").asString()).startsWith("the body names maxAtempts, which is no "
				+ "setting (did you mean maxAttempts?); the settings are maxAttempts, baseDelay,");
		JsonNode downstream = this.http.get("/actuator/backoff", JsonNode.class).getBody().get("policies")
			.get("downstream");
		assertThat(downstream.get("settings").get("maxAttempts").asInt()).isEqualTo(4);
		assertThat(downstream.has("changes")).isFalse();
		ResponseEntity<JsonNode> unknown = this.http.postJson("/actuator/backoff/nope", "{\"maxAttempts\": 1}");
		assertThat(unknown.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
		assertThat(unknown.getBody().get("message").asString()).startsWith("No Backoff policy is named 'nope'");
	}

	/**
	 * A hundred changes suffice: the 16 callers keep calls in flight throughout, so nearly every
	 * call spans a change (about 700 of about 700 in a measured run; asserted: at least 100), a
	 * torn read would show as a third kind of call, and each change still goes through the
	 * endpoint, its validation and its logging. The fine-grained race, 1,000 changes against 8
	 * threads without HTTP in between, is {@code BackoffLivePoliciesTests} in the
	 * auto-configuration module.
	 */
	@Test
	void sixteenThreadsCallingWhileThePolicyChangesAHundredTimesEachUseTheOldOrTheNewSettings() throws Exception {
		String first = "{\"maxAttempts\": 4, \"baseDelay\": \"100ms\", \"jitter\": \"none\", \"budgetEnabled\": false}";
		String second = "{\"maxAttempts\": 2, \"baseDelay\": \"300ms\"}";
		assertThat(this.http.postJson(POLICY, first).getStatusCode()).isEqualTo(HttpStatus.OK);
		setFaults("failureRate=1.0");
		this.quoteCalls.clear();
		long requestsBefore = stats().requests();
		AtomicBoolean changing = new AtomicBoolean(true);
		AtomicInteger calls = new AtomicInteger();
		AtomicInteger changes = new AtomicInteger();
		AtomicInteger spanningAChange = new AtomicInteger();
		Set<HttpStatusCode> statuses = ConcurrentHashMap.newKeySet();
		ExecutorService threads = Executors.newFixedThreadPool(16);
		try {
			List<CompletableFuture<Void>> callers = new ArrayList<>();
			for (int i = 0; i < 16; i++) {
				callers.add(CompletableFuture.runAsync(() -> {
					while (changing.get() || calls.get() < 160) {
						int changesBefore = changes.get();
						statuses.add(this.http.get("/quotes/ACME", String.class).getStatusCode());
						if (changes.get() != changesBefore) {
							spanningAChange.incrementAndGet();
						}
						calls.incrementAndGet();
					}
				}, threads));
			}
			for (int i = 0; i < 100; i++) {
				assertThat(this.http.postJson(POLICY, (i % 2 == 0) ? second : first).getStatusCode())
					.isEqualTo(HttpStatus.OK);
				changes.incrementAndGet();
			}
			changing.set(false);
			CompletableFuture.allOf(callers.toArray(new CompletableFuture[0])).get(120, TimeUnit.SECONDS);
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(statuses).containsOnly(HttpStatus.BAD_GATEWAY);
		assertThat(spanningAChange.get()).as("calls in flight across a change").isGreaterThanOrEqualTo(100);
		// Every call ended exactly once, under the first settings or the second, never a mix.
		assertThat(this.quoteCalls.ended()).hasSize(calls.get());
		assertThat(Set.copyOf(this.quoteCalls.ended())).containsExactlyInAnyOrder(
				"4 attempts [100ms, 200ms, 400ms] exhausted", "2 attempts [300ms] exhausted");
		assertThat(stats().requests() - requestsBefore)
			.isEqualTo(this.quoteCalls.attempts().stream().mapToLong(Integer::longValue).sum());
	}

	private void setFaults(String query) {
		assertThat(this.http.post("/downstream/faults?" + query, String.class).getStatusCode()).isEqualTo(HttpStatus.OK);
	}

	private StatsView stats() {
		return this.http.get("/downstream/stats", StatsView.class).getBody();
	}

	/**
	 * Records each call of {@code QuoteClient.fetch} as it ends: its attempts, its waits and its
	 * outcome. The calls are blocking, so a call's events all come on its request's thread.
	 */
	static class QuoteCalls implements BackoffListenerFactory {

		private final Queue<String> ended = new ConcurrentLinkedQueue<>();

		private final Queue<Integer> attempts = new ConcurrentLinkedQueue<>();

		private final ThreadLocal<List<Duration>> waits = ThreadLocal.withInitial(ArrayList::new);

		@Override
		public BackoffListener create(BackoffOperation operation) {
			if (!operation.getMethodTag().equals("QuoteClient.fetch")) {
				return BackoffListener.NONE;
			}
			return new BackoffListener() {

				@Override
				public void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
					QuoteCalls.this.waits.get().add(delay);
				}

				@Override
				public void onSuccess(Outcome outcome, int attempts) {
					end(outcome, attempts);
				}

				@Override
				public void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
					end(outcome, attempts);
				}

			};
		}

		private void end(Outcome outcome, int attempts) {
			List<Duration> waits = this.waits.get();
			this.ended.add(attempts + " attempts " + waits.stream().map(DurationFormat::format).toList() + " "
					+ outcome.tagValue());
			this.attempts.add(attempts);
			waits.clear();
		}

		List<String> ended() {
			return List.copyOf(this.ended);
		}

		List<Integer> attempts() {
			return List.copyOf(this.attempts);
		}

		void clear() {
			this.ended.clear();
			this.attempts.clear();
		}

	}

}
