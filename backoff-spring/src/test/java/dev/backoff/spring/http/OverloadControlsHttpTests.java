package dev.backoff.spring.http;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;

import dev.backoff.AdmissionRejectedException;
import dev.backoff.RecordingSleeper;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.http.LoopbackServer.Reply;
import dev.backoff.spring.metrics.BackoffMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A policy's overload controls through both HTTP clients over real HTTP on loopback: admission
 * rejects requests locally once the server fails them, so they never reach it; pacing, woken by
 * a 429, makes each later request of the policy wait for its slot (recorded, not slept).
 */
class OverloadControlsHttpTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private static final int CALLS = 60;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class)
		.withBean(RecordingSleeper.class)
		.withPropertyValues("backoff.policies.downstream.base-delay=10ms", "backoff.policies.downstream.jitter=none");

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
	void theRestClientsRequestsAreRejectedLocallyOnceTheServerFailsThem() {
		this.runner.withPropertyValues("backoff.policies.downstream.max-attempts=1",
				"backoff.policies.downstream.admission.enabled=true").run((context) -> {
					this.server.reply(Reply.times(CALLS, Reply.status(503, "down")));
					RestClient client = restClient(context);
					int rejected = 0;
					for (int i = 0; i < CALLS; i++) {
						try {
							client.get().uri("/quote").retrieve().body(String.class);
						}
						catch (AdmissionRejectedException ex) {
							rejected++;
						}
						catch (HttpServerErrorException.ServiceUnavailable ex) {
							// Sent, and failed.
						}
					}
					assertRejectedLocally(context, rejected);
				});
	}

	@Test
	void theWebClientsRequestsAreRejectedLocallyOnceTheServerFailsThem() {
		this.runner.withPropertyValues("backoff.policies.downstream.max-attempts=1",
				"backoff.policies.downstream.admission.enabled=true").run((context) -> {
					this.server.reply(Reply.times(CALLS, Reply.status(503, "down")));
					WebClient client = webClient(context);
					int rejected = 0;
					for (int i = 0; i < CALLS; i++) {
						try {
							client.get().uri("/quote").retrieve().bodyToMono(String.class).block(TIMEOUT);
						}
						catch (AdmissionRejectedException ex) {
							rejected++;
						}
						catch (WebClientResponseException.ServiceUnavailable ex) {
							// Sent, and failed.
						}
					}
					assertRejectedLocally(context, rejected);
				});
	}

	@Test
	void aTooManyRequestsWakesThePaceAndEachLaterRequestWaitsForItsSlot() {
		this.runner.withPropertyValues("backoff.policies.downstream.pacing.enabled=true").run((context) -> {
			this.server.reply(Reply.status(429, "slow down"));
			RestClient client = restClient(context);
			assertThat(client.get().uri("/quote").retrieve().body(String.class)).isEqualTo("ok");
			assertThat(context.getBean(BackoffPolicies.class).getEffective("downstream").controls().getPacing().isActive())
				.isTrue();
			RecordingSleeper sleeper = context.getBean(RecordingSleeper.class);
			int before = sleeper.sleeps().size();
			for (int i = 0; i < 3; i++) {
				assertThat(client.get().uri("/quote").retrieve().body(String.class)).isEqualTo("ok");
			}
			// Recorded, not slept: each request reserved the slot after the one before, so each waits longer.
			List<Duration> paces = sleeper.sleeps().subList(before, sleeper.sleeps().size());
			assertThat(paces).hasSize(3);
			assertThat(paces.get(1)).isGreaterThan(paces.get(0));
			assertThat(paces.get(2)).isGreaterThan(paces.get(1));
			assertThat(this.server.requests()).hasSize(5);
		});
	}

	private void assertRejectedLocally(AssertableApplicationContext context, int rejected) {
		// With every request failing, about 90 % are rejected once the first few have failed.
		assertThat(rejected).isGreaterThan(CALLS / 2).isLessThan(CALLS);
		assertThat(this.server.requests()).hasSize(CALLS - rejected);
		assertThat(context.getBean(MeterRegistry.class).get(BackoffMetrics.CALLS).tag("method", "downstream GET")
			.tag("outcome", "admission_rejected").counter().count()).isEqualTo(rejected);
	}

	private RestClient restClient(AssertableApplicationContext context) {
		HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		return RestClient.builder()
			.baseUrl(this.server.url())
			.requestFactory(new JdkClientHttpRequestFactory(http))
			.requestInterceptor(context.getBean(BackoffHttp.class).interceptor("downstream"))
			.build();
	}

	private WebClient webClient(AssertableApplicationContext context) {
		HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		return WebClient.builder()
			.baseUrl(this.server.url())
			.clientConnector(new JdkClientHttpConnector(http))
			.filter(context.getBean(ReactiveBackoffHttp.class).filter("downstream"))
			.build();
	}

}
