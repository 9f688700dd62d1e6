package dev.backoff.spring.http;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.backoff.ManualScheduler;
import dev.backoff.spring.BackoffConfiguration;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.http.LoopbackServer.Reply;
import dev.backoff.spring.metrics.BackoffMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Hedged requests of {@code WebClient} over real HTTP on loopback: a GET that the server does
 * not answer is sent again when the hedge timer fires (a {@link ManualScheduler}, so the test
 * decides when), the second answer is the client's, and the silent copy is cancelled. A request
 * with a body is never hedged; a blocking client, or a policy that also retries non-idempotent
 * requests, cannot hedge.
 */
class HedgedHttpTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final ManualScheduler scheduler = new ManualScheduler();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class)
		.withAllowBeanDefinitionOverriding(true)
		.withBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, ScheduledExecutorService.class, () -> this.scheduler)
		.withPropertyValues("backoff.policies.hedged.max-attempts=3", "backoff.policies.hedged.hedge-delay=50ms",
				"backoff.policies.hedged.max-hedges=1");

	private LoopbackServer server;

	@BeforeEach
	void startServer() throws Exception {
		this.server = new LoopbackServer();
	}

	@AfterEach
	void stopServer() throws Exception {
		this.server.close();
	}

	@Test
	void aGetThatIsNotAnsweredWithinTheDelayIsSentAgainAndTheSecondAnswerWins() {
		this.server.reply(Reply.silent());
		this.runner.run((context) -> {
			CompletableFuture<String> answer = webClient(context).get()
				.uri("/quote")
				.retrieve()
				.bodyToMono(String.class)
				.toFuture();
			awaitRequests(1);
			assertThat(answer).isNotDone();
			assertThat(this.scheduler.delays()).containsExactly(Duration.ofMillis(50));
			assertThat(this.scheduler.runNext()).isTrue();
			assertThat(answer.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("ok");
			assertThat(this.server.requests()).hasSize(2);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			for (String event : new String[] { "sent", "won", "cancelled" }) {
				assertThat(registry.get(BackoffMetrics.HEDGES).tag("method", "hedged GET").tag("event", event)
					.counter()
					.count()).as(event).isOne();
			}
			assertThat(this.scheduler.pending()).isZero();
		});
	}

	@Test
	void aCopyCutOffByTheAttemptTimeoutHasItsExchangeCancelledAndItsConnectionClosed() {
		this.server.reply(Reply.silent(), Reply.silent());
		this.runner.withPropertyValues("backoff.policies.hedged.attempt-timeout=200ms").run((context) -> {
			CompletableFuture<String> answer = webClient(context).get()
				.uri("/quote")
				.retrieve()
				.bodyToMono(String.class)
				.toFuture();
			awaitRequests(1);
			// The hedge timer, then the first copy's timeout.
			assertThat(this.scheduler.delays()).containsExactly(Duration.ofMillis(50), Duration.ofMillis(200));
			assertThat(this.scheduler.runNext()).isTrue();
			awaitRequests(2);
			assertThat(this.scheduler.runNext()).isTrue();
			// The first copy timed out: its exchange is cancelled, as an unhedged attempt's is.
			assertThat(this.server.closedByClient(0, TIMEOUT)).isTrue();
			assertThat(answer).isNotDone();
			// The second copy times out too; the retry after the wait is answered.
			assertThat(this.scheduler.runNext()).isTrue();
			assertThat(this.server.closedByClient(1, TIMEOUT)).isTrue();
			assertThat(this.scheduler.runNext()).isTrue();
			assertThat(answer.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("ok");
			assertThat(this.server.requests()).hasSize(3);
		});
	}

	@Test
	void aRequestWithABodyIsNeverHedged() {
		this.runner.run((context) -> {
			String answer = webClient(context).put().uri("/quote").bodyValue("42").retrieve().bodyToMono(String.class)
				.block(TIMEOUT);
			assertThat(answer).isEqualTo("ok");
			assertThat(this.scheduler.delays()).isEmpty();
			assertThat(this.server.requests()).hasSize(1);
		});
	}

	@Test
	void aBlockingClientRefusesAPolicyThatHedges() {
		this.runner.run((context) -> assertThatExceptionOfType(BackoffConfigurationException.class)
			.isThrownBy(() -> context.getBean(BackoffHttp.class).interceptor("hedged"))
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("backoff.policies.hedged.max-hedges"))
			.withMessageContaining("BackoffHttp.interceptor(\"hedged\"), which is blocking"));
	}

	@Test
	void aPolicyThatHedgesAndRetriesNonIdempotentRequestsIsRefused() {
		this.runner.withPropertyValues("backoff.policies.hedged.retry-non-idempotent=true")
			.run((context) -> assertThatExceptionOfType(BackoffConfigurationException.class)
				.isThrownBy(() -> context.getBean(ReactiveBackoffHttp.class).filter("hedged"))
				.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("backoff.policies.hedged.max-hedges"))
				.withMessageContaining("cannot be combined with retry-non-idempotent"));
	}

	private WebClient webClient(AssertableApplicationContext context) {
		HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		return WebClient.builder()
			.baseUrl(this.server.url())
			.clientConnector(new JdkClientHttpConnector(http))
			.filter(context.getBean(ReactiveBackoffHttp.class).filter("hedged"))
			.build();
	}

	/** Waits for the server to have read requests: real I/O on loopback, bounded. */
	private void awaitRequests(int count) throws InterruptedException {
		long deadline = System.nanoTime() + TIMEOUT.toNanos();
		while (this.server.requests().size() < count && System.nanoTime() < deadline) {
			Thread.sleep(5);
		}
		assertThat(this.server.requests()).hasSize(count);
	}

}
