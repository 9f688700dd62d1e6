package dev.backoff.spring.http;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.backoff.Backoff;
import dev.backoff.RecordingSleeper;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.http.LoopbackServer.Reply;
import dev.backoff.spring.http.LoopbackServer.Request;
import dev.backoff.spring.metrics.BackoffMetrics;
import dev.backoff.spring.operation.BackoffOperationSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.InputStreamResource;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.support.RestClientAdapter;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.invoker.HttpServiceProxyFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link BackoffHttp} over real HTTP on loopback: {@code RestClient} (and an
 * {@code @HttpExchange} client on it) with the interceptor, {@code WebClient} with the
 * filter, against a {@link LoopbackServer} that scripts each reply. Waits are recorded by a
 * {@link RecordingSleeper} (blocking) or are the policy's few milliseconds (reactive).
 */
class BackoffHttpTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class)
		.withBean(RecordingSleeper.class)
		.withPropertyValues("backoff.policies.downstream.max-attempts=3", "backoff.policies.downstream.base-delay=10ms",
				"backoff.policies.downstream.jitter=none", "backoff.policies.downstream.throttle-base-delay=1s");

	private LoopbackServer server;

	@BeforeEach
	void startServer() throws Exception {
		this.server = new LoopbackServer();
	}

	@AfterEach
	void stopServer() throws Exception {
		this.server.close();
	}

	// RestClient

	@Test
	void aGetIsRetriedOn503AndTheInterceptorsAfterOursRunForEveryAttempt() {
		this.runner.run((context) -> {
			this.server.reply(Reply.times(2, Reply.status(503, "down")));
			AtomicInteger counted = new AtomicInteger();
			RestClient client = restClient(context, (request, body, execution) -> {
				counted.incrementAndGet();
				return execution.execute(request, body);
			});
			assertThat(client.get().uri("/quote").retrieve().body(String.class)).isEqualTo("ok");
			assertThat(this.server.requests()).hasSize(3);
			assertThat(counted).hasValue(3);
			assertThat(sleeps(context)).containsExactly(Duration.ofMillis(10), Duration.ofMillis(20));
			assertThat(calls(context, "downstream GET", "success_after_retry")).isEqualTo(1);
			assertThat(context.getBean(MeterRegistry.class).get(BackoffMetrics.RETRIES)
				.tag("method", "downstream GET").tag("exception", "ServiceUnavailable").counter().count()).isEqualTo(2);
		});
	}

	@Test
	void aGetIsRetriedWhenTheConnectionIsReset() {
		this.runner.run((context) -> {
			// The JDK's HttpClient retries a GET once itself on a reset: two resets reach us as one IOException.
			this.server.reply(Reply.connectionReset(), Reply.connectionReset());
			assertThat(restClient(context).get().uri("/quote").retrieve().body(String.class)).isEqualTo("ok");
			assertThat(this.server.requests()).hasSize(3);
			assertThat(calls(context, "downstream GET", "success_after_retry")).isEqualTo(1);
			assertThat(context.getBean(MeterRegistry.class).get(BackoffMetrics.RETRIES).tag("method", "downstream GET")
				.counter().getId().getTag("exception")).isIn("IOException", "ConnectException", "SocketException");
		});
	}

	@Test
	void whenTheAttemptsRunOutTheClientGetsTheLastResponseAsWithoutRetries() {
		this.runner.run((context) -> {
			this.server.reply(Reply.status(503, "down 1"), Reply.status(503, "down 2"), Reply.status(503, "down 3"));
			assertThatExceptionOfType(HttpServerErrorException.ServiceUnavailable.class)
				.isThrownBy(() -> restClient(context).get().uri("/quote").retrieve().body(String.class))
				.satisfies((ex) -> assertThat(ex.getResponseBodyAsString()).isEqualTo("down 3"));
			assertThat(this.server.requests()).hasSize(3);
			assertThat(calls(context, "downstream GET", "exhausted")).isEqualTo(1);
		});
	}

	@Test
	void aStatusThePolicyDoesNotRetryReachesTheClientAtOnce() {
		this.runner.run((context) -> {
			this.server.reply(Reply.status(404, "no such quote"));
			assertThatExceptionOfType(HttpClientErrorException.NotFound.class)
				.isThrownBy(() -> restClient(context).get().uri("/quote").retrieve().body(String.class))
				.satisfies((ex) -> assertThat(ex.getResponseBodyAsString()).isEqualTo("no such quote"));
			assertThat(this.server.requests()).hasSize(1);
			assertThat(calls(context, "downstream GET", "not_retryable")).isEqualTo(1);
		});
	}

	@Test
	void aPostWithoutAnIdempotencyKeyIsNotRetried() {
		this.runner.run((context) -> {
			this.server.reply(Reply.status(503, "down"));
			assertThatExceptionOfType(HttpServerErrorException.ServiceUnavailable.class)
				.isThrownBy(() -> restClient(context).post().uri("/orders").body("order").retrieve().body(String.class));
			assertThat(this.server.requests()).hasSize(1);
			// Not Backoff's call: it went through once, untouched and unmetered.
			assertThat(context.getBean(MeterRegistry.class).find(BackoffMetrics.CALLS).tag("method", "downstream POST")
				.counters()).isEmpty();
		});
	}

	@Test
	void aPostWithAnIdempotencyKeyIsRetriedAndItsBodyArrivesIntactEveryTime() {
		this.runner.run((context) -> {
			this.server.reply(Reply.times(2, Reply.status(503, "down")));
			String body = "{\"quote\":\"Grüße\",\"amount\":42}";
			assertThat(restClient(context).post().uri("/orders").header(BackoffHttp.IDEMPOTENCY_KEY, "order-7")
				.contentType(MediaType.APPLICATION_JSON)
				.body(body).retrieve().body(String.class)).isEqualTo("ok");
			assertThat(this.server.requests()).hasSize(3).allSatisfy((request) -> {
				assertThat(request.text()).isEqualTo(body);
				assertThat(request.headers()).containsEntry("idempotency-key", "order-7");
			});
			assertThat(calls(context, "downstream POST", "success_after_retry")).isEqualTo(1);
		});
	}

	@Test
	void aStreamedBodyIsBufferedBySpringSoEveryAttemptSendsItWhole() {
		this.runner.run((context) -> {
			this.server.reply(Reply.times(2, Reply.status(503, "down")));
			byte[] upload = "a stream read once".getBytes(StandardCharsets.UTF_8);
			restClient(context).put().uri("/upload").body(new InputStreamResource(new ByteArrayInputStream(upload)))
				.retrieve().toBodilessEntity();
			assertThat(this.server.requests()).extracting(Request::body).hasSize(3).allSatisfy((body) ->
					assertThat(body).isEqualTo(upload));
		});
	}

	@Test
	void aPostWithABlankIdempotencyKeyIsNotRetried() {
		this.runner.run((context) -> {
			this.server.reply(Reply.status(503, "down"), Reply.status(503, "down"));
			for (String blank : List.of("", " ")) {
				assertThatExceptionOfType(HttpServerErrorException.ServiceUnavailable.class)
					.isThrownBy(() -> restClient(context).post().uri("/orders").header(BackoffHttp.IDEMPOTENCY_KEY, blank)
						.body("order").retrieve().body(String.class));
			}
			assertThat(this.server.requests()).hasSize(2);
		});
	}

	@Test
	void eachAttemptRunsTheInterceptorsAfterOursOnAFreshCopyOfTheRequest() {
		this.runner.run((context) -> {
			this.server.reply(Reply.times(2, Reply.status(503, "down")));
			List<List<String>> signatures = new CopyOnWriteArrayList<>();
			RestClient client = restClient(context, (request, body, execution) -> {
				signatures.add(List.copyOf(request.getHeaders().getOrEmpty("X-Signature")));
				request.getHeaders().add("X-Signature", "sig");
				return execution.execute(request, body);
			});
			assertThat(client.get().uri("/quote").retrieve().body(String.class)).isEqualTo("ok");
			assertThat(signatures).containsExactly(List.of(), List.of(), List.of());
			assertThat(this.server.requests()).allSatisfy((request) ->
					assertThat(request.headers()).containsEntry("x-signature", "sig"));
		});
	}

	@Test
	void aRetriedErrorResponseIsClosedUnreadSoABodyThatNeverEndsDoesNotHoldTheRetry() {
		this.runner.run((context) -> {
			this.server.reply(Reply.stalled(503, "down, and more to come"));
			assertThat(within(() -> restClient(context).get().uri("/quote").retrieve().body(String.class)))
				.isEqualTo("ok");
			assertThat(this.server.requests()).hasSize(2);
		});
	}

	@Test
	void exchangeSeesAnErrorResponseThatEndsTheCallWithItsBodyUnread() {
		this.runner.run((context) -> {
			this.server.reply(Reply.stalled(404, "no such quote, and more to come"));
			// Not closed by exchange: closing reads the rest of the body, with or without Backoff.
			Integer status = within(() -> restClient(context).get().uri("/quote").exchange((request, response) -> {
				try (InputStream body = response.getBody()) {
					return response.getStatusCode().value();
				}
			}, false));
			assertThat(status).isEqualTo(404);
			assertThat(this.server.requests()).hasSize(1);
			assertThat(calls(context, "downstream GET", "not_retryable")).isEqualTo(1);
		});
	}

	@Test
	void aPolicyMayRetryPostsWithoutAKey() {
		this.runner.withPropertyValues("backoff.policies.downstream.retry-non-idempotent=true").run((context) -> {
			this.server.reply(Reply.status(503, "down"));
			assertThat(restClient(context).post().uri("/orders").body("order").retrieve().body(String.class))
				.isEqualTo("ok");
			assertThat(this.server.requests()).hasSize(2);
		});
	}

	@Test
	void aMethodOutsideTheStandardNineIsNamedOtherSoThatTheTagsStayBounded() {
		this.runner.run((context) -> {
			this.server.reply(Reply.status(503, "down"));
			assertThat(restClient(context).method(HttpMethod.valueOf("PURGE")).uri("/cache")
				.header(BackoffHttp.IDEMPOTENCY_KEY, "purge-1")
				.retrieve()
				.body(String.class)).isEqualTo("ok");
			assertThat(this.server.requests()).hasSize(2);
			assertThat(calls(context, "downstream OTHER", "success_after_retry")).isEqualTo(1);
		});
	}

	@Test
	void a429AndA503WithRetryAfterWaitByTheThrottlingScheduleAndA503WithoutItByTheNormalOne() {
		this.runner.run((context) -> {
			this.server.reply(Reply.status(429, "slow down"), Reply.status(503, "down"));
			assertThat(restClient(context).get().uri("/quote").retrieve().body(String.class)).isEqualTo("ok");
			this.server.reply(Reply.status(503, "busy", "Retry-After", "0"));
			assertThat(restClient(context).get().uri("/quote").retrieve().body(String.class)).isEqualTo("ok");
			// Retry 1 after 429: 1s × 2^0; retry 2 after a plain 503: 10ms × 2^1; then retry 1 after 503 + Retry-After: 1s.
			assertThat(sleeps(context)).containsExactly(Duration.ofSeconds(1), Duration.ofMillis(20),
					Duration.ofSeconds(1));
		});
	}

	@Test
	void anHttpInterfaceClientOnTheRestClientRetriesThroughIt() {
		this.runner.run((context) -> {
			this.server.reply(Reply.status(503, "down"));
			Quotes quotes = HttpServiceProxyFactory.builderFor(RestClientAdapter.create(restClient(context)))
				.build()
				.createClient(Quotes.class);
			assertThat(quotes.quote()).isEqualTo("ok");
			assertThat(this.server.requests()).hasSize(2);
		});
	}

	@Test
	void aLiveChangeOfThePolicyReachesItsClients() {
		this.runner.run((context) -> {
			RestClient client = restClient(context);
			assertThat(client.get().uri("/quote").retrieve().body(String.class)).isEqualTo("ok");
			context.getBean(BackoffOperationSource.class).change("downstream", Map.of("maxAttempts", "1"));
			this.server.reply(Reply.status(503, "down"));
			assertThatExceptionOfType(HttpServerErrorException.class)
				.isThrownBy(() -> client.get().uri("/quote").retrieve().body(String.class));
			assertThat(this.server.requests()).hasSize(2);
		});
	}

	@Test
	void aClientCalledInsideABackoffMethodLeavesTheRetriesToIt() {
		this.runner.withBean(Outer.class).run((context) -> {
			Outer outer = context.getBean(Outer.class);
			outer.use(restClient(context));
			this.server.reply(Reply.times(2, Reply.status(503, "down")));
			assertThat(outer.quote()).isEqualTo("ok");
			// One request per outer attempt: the client's own retries are left to the outer call.
			assertThat(this.server.requests()).hasSize(3);
			assertThat(calls(context, "downstream GET", "nested")).isEqualTo(2);
		});
	}

	@Test
	void anUnknownPolicyIsReportedWhenTheClientIsBuilt() {
		this.runner.run((context) -> assertThatExceptionOfType(BackoffConfigurationException.class)
			.isThrownBy(() -> context.getBean(BackoffHttp.class).interceptor("downstrem"))
			.withMessageContaining("BackoffHttp.interceptor(\"downstrem\") in BackoffHttpTests.lambda$")
			.withMessageContaining("must name a policy under backoff.policies (configured: downstream) or defaults")
			.withMessageEndingWith("Did you mean 'downstream'? Add backoff.policies.downstrem to the configuration, "
					+ "or name one of downstream."));
	}

	@Test
	void withoutWebFluxThereIsNoReactiveBeanAndTheBlockingOneStays() {
		// The sample application (servlet only, no WebFlux) starts with BackoffHttp in use: the real proof.
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.web.reactive"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(BackoffHttp.class)
				.doesNotHaveBean(ReactiveBackoffHttp.class));
	}

	@Test
	void eachRequestIsObservedAsACallWithItsAttemptsForBothClients() {
		this.runner.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
			.withPropertyValues("backoff.observations.enabled=true")
			.run((context) -> {
				TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
				this.server.reply(Reply.status(503, "down"));
				restClient(context).get().uri("/quote").retrieve().body(String.class);
				this.server.reply(Reply.status(429, "slow down", "Retry-After", "0"));
				webClient(context).get().uri("/quote").retrieve().bodyToMono(String.class).block(TIMEOUT);
				TestObservationRegistryAssert.assertThat(registry)
					.hasNumberOfObservationsWithNameEqualTo("backoff.call", 2)
					.hasNumberOfObservationsWithNameEqualTo("backoff.attempt", 4)
					.hasObservationWithNameEqualTo("backoff.call")
					.that()
					.hasLowCardinalityKeyValue("backoff.policy", "downstream")
					.hasLowCardinalityKeyValue("backoff.method", "downstream GET")
					.hasLowCardinalityKeyValue("backoff.outcome", "success_after_retry");
				TestObservationRegistryAssert.assertThat(registry)
					.hasAnObservation((observation) -> observation.hasNameEqualTo("backoff.attempt")
						.hasLowCardinalityKeyValue("exception", "ServiceUnavailable"))
					.hasAnObservation((observation) -> observation.hasNameEqualTo("backoff.attempt")
						.hasLowCardinalityKeyValue("exception", "TooManyRequests"));
			});
	}

	@Test
	void aBackoffMethodWaitsByTheThrottlingScheduleTooAfterA429OrAThrottleOnFailure() {
		this.runner.withBean(Throttled.class)
			.withPropertyValues("backoff.policies.downstream.throttle-on=" + SlowDown.class.getName())
			.run((context) -> {
				Throttled throttled = context.getBean(Throttled.class);
				assertThat(throttled.call(HttpClientErrorException.create(HttpStatus.TOO_MANY_REQUESTS, "Too Many Requests",
						HttpHeaders.EMPTY, new byte[0], null), new SlowDown())).isEqualTo("ok");
				// Retry 1 after the 429: 1s; retry 2 after the throttle-on failure: 1s × 2.
				assertThat(sleeps(context)).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2));
			});
	}

	// WebClient

	@Test
	void aWebClientGetIsRetriedOn503AndTheFiltersAfterOursRunForEveryAttempt() {
		this.runner.run((context) -> {
			this.server.reply(Reply.times(2, Reply.status(503, "down")));
			AtomicInteger counted = new AtomicInteger();
			WebClient client = webClient(context, (request, next) -> {
				counted.incrementAndGet();
				return next.exchange(request);
			});
			assertThat(client.get().uri("/quote").retrieve().bodyToMono(String.class).block(TIMEOUT)).isEqualTo("ok");
			assertThat(this.server.requests()).hasSize(3);
			assertThat(counted).hasValue(3);
			assertThat(calls(context, "downstream GET", "success_after_retry")).isEqualTo(1);
		});
	}

	@Test
	void aWebClientGetsTheLastResponseWhenTheAttemptsRunOut() {
		this.runner.run((context) -> {
			this.server.reply(Reply.status(503, "down 1"), Reply.status(503, "down 2"), Reply.status(503, "down 3"));
			assertThatExceptionOfType(WebClientResponseException.ServiceUnavailable.class)
				.isThrownBy(() -> webClient(context).get().uri("/quote").retrieve().bodyToMono(String.class)
					.block(TIMEOUT))
				.satisfies((ex) -> assertThat(ex.getResponseBodyAsString()).isEqualTo("down 3"));
			assertThat(calls(context, "downstream GET", "exhausted")).isEqualTo(1);
		});
	}

	@Test
	void aWebClientBodyIsWrittenAgainForEveryAttempt() {
		this.runner.run((context) -> {
			this.server.reply(Reply.times(2, Reply.status(503, "down")));
			String body = "{\"quote\":\"Grüße\"}";
			assertThat(webClient(context).put().uri("/quote").bodyValue(body).retrieve().bodyToMono(String.class)
				.block(TIMEOUT)).isEqualTo("ok");
			assertThat(this.server.requests()).hasSize(3).allSatisfy((request) -> assertThat(request.text())
				.isEqualTo(body));
		});
	}

	@Test
	void aWebClientBodyThatCannotBeWrittenAgainFailsTheRetryWithAMessageInsteadOfSendingItEmpty() {
		this.runner.run((context) -> {
			this.server.reply(Reply.status(503, "down"));
			Iterator<DataBuffer> once = List.<DataBuffer>of(DefaultDataBufferFactory.sharedInstance
				.wrap("sent once".getBytes(StandardCharsets.UTF_8))).iterator();
			Flux<DataBuffer> oneShot = Flux.fromIterable(() -> once);
			assertThatExceptionOfType(WebClientRequestException.class)
				.isThrownBy(() -> webClient(context).put().uri("/upload").body(oneShot, DataBuffer.class).retrieve()
					.toBodilessEntity().block(TIMEOUT))
				.havingRootCause()
				.isInstanceOf(RequestBodyNotRepeatableException.class)
				.withMessage("The body of PUT " + this.server.url() + "/upload could not be sent again for a retry: "
						+ "an earlier attempt wrote 9 bytes, this one none. Give WebClient a body it can write again "
						+ "whole with its length known (bodyValue, or a publisher that replays and a Content-Length "
						+ "header), or do not retry this request.");
			// The first request arrived whole; the retry was stopped before its body completed.
			assertThat(this.server.requests()).extracting(Request::text).containsExactly("sent once");
			assertThat(calls(context, "downstream PUT", "not_retryable")).isEqualTo(1);
		});
	}

	@Test
	void aWebClientRetryOfAStreamThatGoesOnWhereTheFirstAttemptStoppedFailsInsteadOfSendingTheRest() {
		this.runner.run((context) -> {
			byte[] upload = new byte[8 * 1024 * 1024];
			new SplittableRandom(29).nextBytes(upload);
			// One stream for every subscription: a retry reads on from where the reset left it.
			ByteArrayInputStream stream = new ByteArrayInputStream(upload);
			Flux<DataBuffer> body = DataBufferUtils.readInputStream(() -> stream, DefaultDataBufferFactory.sharedInstance,
					8192);
			this.server.reply(Reply.resetAfterReading(16 * 1024));
			assertThatExceptionOfType(WebClientRequestException.class)
				.isThrownBy(() -> webClient(context).put().uri("/upload").body(body, DataBuffer.class).retrieve()
					.toBodilessEntity().block(TIMEOUT))
				.havingRootCause()
				.isInstanceOf(RequestBodyNotRepeatableException.class)
				.withMessageStartingWith("The body of PUT " + this.server.url() + "/upload could not be sent again "
						+ "for a retry: ");
			// Neither attempt's body reached the server whole: no truncated request was taken for a complete one.
			assertThat(this.server.requests()).isEmpty();
			assertThat(calls(context, "downstream PUT", "not_retryable")).isEqualTo(1);
		});
	}

	@Test
	void aWebClientOneShotFluxFailsItsRetryAsNotRepeatableAndIsNotRetriedFurther() {
		this.runner.run((context) -> {
			this.server.reply(Reply.times(2, Reply.status(503, "down")));
			Sinks.Many<DataBuffer> sink = Sinks.many().unicast().onBackpressureBuffer();
			sink.tryEmitNext(DefaultDataBufferFactory.sharedInstance.wrap("sent once".getBytes(StandardCharsets.UTF_8)));
			sink.tryEmitComplete();
			assertThatExceptionOfType(WebClientRequestException.class)
				.isThrownBy(() -> webClient(context).put().uri("/upload").body(sink.asFlux(), DataBuffer.class)
					.retrieve().toBodilessEntity().block(TIMEOUT))
				.havingRootCause()
				.isInstanceOf(IllegalStateException.class)
				.withMessageContaining("single Subscriber");
			assertThat(this.server.requests()).extracting(Request::text).containsExactly("sent once");
			assertThat(calls(context, "downstream PUT", "not_retryable")).isEqualTo(1);
		});
	}

	@Test
	void aWebClient404WithABodyOverTheCodecLimitIsJudgedByItsStatusAndNotRetried() {
		this.runner.run((context) -> {
			this.server.reply(Reply.status(404, "x".repeat(300 * 1024)));
			assertThatExceptionOfType(WebClientResponseException.NotFound.class)
				.isThrownBy(() -> webClient(context).get().uri("/quote").retrieve().bodyToMono(String.class)
					.block(TIMEOUT));
			assertThat(this.server.requests()).hasSize(1);
			assertThat(calls(context, "downstream GET", "not_retryable")).isEqualTo(1);
		});
	}

	@Test
	void aWebClientPostWithoutAKeyIsNotRetried() {
		this.runner.run((context) -> {
			this.server.reply(Reply.status(503, "down"));
			assertThatExceptionOfType(WebClientResponseException.ServiceUnavailable.class)
				.isThrownBy(() -> webClient(context).post().uri("/orders").bodyValue("order").retrieve()
					.bodyToMono(String.class).block(TIMEOUT));
			assertThat(this.server.requests()).hasSize(1);
		});
	}

	private RestClient restClient(AssertableApplicationContext context, ClientHttpRequestInterceptor... after) {
		HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		return RestClient.builder()
			.baseUrl(this.server.url())
			.requestFactory(new JdkClientHttpRequestFactory(http))
			.requestInterceptor(context.getBean(BackoffHttp.class).interceptor("downstream"))
			.requestInterceptors((interceptors) -> interceptors.addAll(List.of(after)))
			.build();
	}

	private WebClient webClient(AssertableApplicationContext context, ExchangeFilterFunction... after) {
		HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		return WebClient.builder()
			.baseUrl(this.server.url())
			.clientConnector(new JdkClientHttpConnector(http))
			.filter(context.getBean(ReactiveBackoffHttp.class).filter("downstream"))
			.filters((filters) -> filters.addAll(List.of(after)))
			.build();
	}

	/** Runs a call that would block forever without the fix, failing after the timeout instead. */
	private static <T> T within(Supplier<T> call) throws Exception {
		return CompletableFuture.supplyAsync(call).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
	}

	private static List<Duration> sleeps(AssertableApplicationContext context) {
		return context.getBean(RecordingSleeper.class).sleeps();
	}

	private static double calls(AssertableApplicationContext context, String method, String outcome) {
		return context.getBean(MeterRegistry.class).get(BackoffMetrics.CALLS).tag("method", method)
			.tag("outcome", outcome).counter().count();
	}

	static class SlowDown extends RuntimeException {

	}

	static class Throttled {

		private int attempt;

		@Backoff("downstream")
		public String call(RuntimeException first, RuntimeException second) {
			this.attempt++;
			if (this.attempt <= 2) {
				throw (this.attempt == 1) ? first : second;
			}
			return "ok";
		}

	}

	interface Quotes {

		@GetExchange("/quote")
		String quote();

	}

	static class Outer {

		private RestClient client;

		// A method, not a field: the test holds the CGLIB proxy, whose own fields stay unset.
		public void use(RestClient client) {
			this.client = client;
		}

		@Backoff(value = "downstream", baseDelay = "1ms")
		public String quote() {
			return this.client.get().uri("/quote").retrieve().body(String.class);
		}

	}

}
