package dev.backoff.spring.http;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.RecordingSleeper;
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
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Scope;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code BackoffHttp.builder} and {@code ReactiveBackoffHttp.builder}: a client under a policy
 * from a shared builder, the builder left as it was; a builder bean that holds Backoff's
 * interceptor or filter stops start-up; an unknown policy names the call and its caller.
 * With Spring Cloud's load balancer: compat/boot-4.0.
 */
class ClientBuildersTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class)
		.withBean(RecordingSleeper.class)
		.withPropertyValues("backoff.policies.downstream.max-attempts=3", "backoff.policies.downstream.base-delay=10ms",
				"backoff.policies.downstream.jitter=none");

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
	void aWebClientFromACopyRetriesThroughTheFiltersAlreadyThereAndTheSharedBuilderStaysUnretried() {
		this.runner.run((context) -> {
			AtomicInteger seen = new AtomicInteger();
			WebClient.Builder shared = WebClient.builder()
				.baseUrl(this.server.url())
				.clientConnector(new JdkClientHttpConnector(jdkClient()))
				.filter(counting(seen));
			WebClient retried = context.getBean(ReactiveBackoffHttp.class).builder(shared, "downstream").build();
			this.server.reply(Reply.status(503, "down"));
			assertThat(retried.get().uri("/quote").retrieve().bodyToMono(String.class).block(TIMEOUT)).isEqualTo("ok");
			// The filter that was there first runs for every attempt: Backoff's is before it.
			assertThat(seen).hasValue(2);
			this.server.reply(Reply.status(503, "down"));
			assertThatExceptionOfType(WebClientResponseException.ServiceUnavailable.class)
				.isThrownBy(() -> shared.build().get().uri("/quote").retrieve().bodyToMono(String.class).block(TIMEOUT));
			assertThat(this.server.requests()).hasSize(3);
			assertThat(calls(context)).isEqualTo(1);
		});
	}

	@Test
	void aRestClientFromACopyRetriesThroughTheInterceptorsAlreadyThereAndTheSharedBuilderStaysUnretried() {
		this.runner.run((context) -> {
			AtomicInteger seen = new AtomicInteger();
			RestClient.Builder shared = RestClient.builder()
				.baseUrl(this.server.url())
				.requestFactory(new JdkClientHttpRequestFactory(jdkClient()))
				.requestInterceptor((request, body, execution) -> {
					seen.incrementAndGet();
					return execution.execute(request, body);
				});
			RestClient retried = context.getBean(BackoffHttp.class).builder(shared, "downstream").build();
			this.server.reply(Reply.status(503, "down"));
			assertThat(retried.get().uri("/quote").retrieve().body(String.class)).isEqualTo("ok");
			assertThat(seen).hasValue(2);
			this.server.reply(Reply.status(503, "down"));
			assertThatExceptionOfType(HttpServerErrorException.ServiceUnavailable.class)
				.isThrownBy(() -> shared.build().get().uri("/quote").retrieve().body(String.class));
			assertThat(this.server.requests()).hasSize(3);
			assertThat(calls(context)).isEqualTo(1);
		});
	}

	@Test
	void aWebClientBuilderBeanHoldingBackoffsFilterStopsStartUp() {
		this.runner.withUserConfiguration(SharedWebClientBuilder.class).run((context) -> {
			BackoffConfigurationException failure = refusal(context);
			assertThat(failure.isInCode()).isTrue();
			assertThat(failure.getProperty()).isEqualTo("WebClient.Builder bean 'sharedBuilder'");
			assertThat(failure.getValue()).isEqualTo("downstream");
			assertThat(failure.getRule()).startsWith("holds Backoff's filter for policy downstream, and a builder bean "
					+ "is shared: every client built from it would retry under downstream");
			assertThat(failure.getAction()).contains("ReactiveBackoffHttp.builder(builder, \"downstream\")");
		});
	}

	@Test
	void aRestClientBuilderBeanHoldingBackoffsInterceptorStopsStartUp() {
		this.runner.withUserConfiguration(SharedRestClientBuilder.class).run((context) -> {
			BackoffConfigurationException failure = refusal(context);
			assertThat(failure.getProperty()).isEqualTo("RestClient.Builder bean 'sharedBuilder'");
			assertThat(failure.getAction()).contains("BackoffHttp.builder(builder, \"downstream\")");
		});
	}

	@Test
	void aPrototypeBuilderBeanMeantForOnePolicyStarts() {
		this.runner.withUserConfiguration(PrototypeBuilder.class)
			.run((context) -> assertThat(context).hasNotFailed().hasBean("customersBuilder"));
	}

	@Test
	void clientBeansBuiltFromCopiesStart() {
		this.runner.withUserConfiguration(ClientsFromCopies.class)
			.run((context) -> assertThat(context).hasNotFailed().hasBean("webClient").hasBean("restClient"));
	}

	@Test
	void anUnknownPolicyNamesTheCallAndTheMethodThatMadeIt() {
		this.runner.run((context) -> {
			assertThatExceptionOfType(BackoffConfigurationException.class)
				.isThrownBy(() -> askFilterForAnUnknownPolicy(context))
				.satisfies((ex) -> {
					assertThat(ex.isInCode()).isTrue();
					assertThat(ex.getProperty()).startsWith("ReactiveBackoffHttp.filter(\"customer\") in "
							+ "ClientBuildersTests.askFilterForAnUnknownPolicy (ClientBuildersTests.java:");
					assertThat(ex.getRule()).isEqualTo("must name a policy under backoff.policies (configured: "
							+ "downstream) or defaults");
				});
			assertThatExceptionOfType(BackoffConfigurationException.class)
				.isThrownBy(() -> context.getBean(BackoffHttp.class).builder(RestClient.builder(), "customer"))
				.satisfies((ex) -> assertThat(ex.getProperty()).startsWith("BackoffHttp.builder(builder, \"customer\") in "
						+ "ClientBuildersTests.lambda$"));
		});
	}

	private static ExchangeFilterFunction askFilterForAnUnknownPolicy(AssertableApplicationContext context) {
		return context.getBean(ReactiveBackoffHttp.class).filter("customer");
	}

	private static BackoffConfigurationException refusal(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		Throwable failure = context.getStartupFailure();
		while (failure != null && !(failure instanceof BackoffConfigurationException)) {
			failure = failure.getCause();
		}
		assertThat(failure).as("the start-up failure's cause").isInstanceOf(BackoffConfigurationException.class);
		return (BackoffConfigurationException) failure;
	}

	private static ExchangeFilterFunction counting(AtomicInteger seen) {
		return (request, next) -> {
			seen.incrementAndGet();
			return next.exchange(request);
		};
	}

	private static HttpClient jdkClient() {
		return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
	}

	private static double calls(AssertableApplicationContext context) {
		return context.getBean(MeterRegistry.class).find(BackoffMetrics.CALLS).tag("method", "downstream GET")
			.counters().stream().mapToDouble((counter) -> counter.count()).sum();
	}

	@Configuration(proxyBeanMethods = false)
	static class SharedWebClientBuilder {

		@Bean
		WebClient.Builder sharedBuilder(ReactiveBackoffHttp http) {
			return WebClient.builder().filter(http.filter("downstream"));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SharedRestClientBuilder {

		@Bean
		RestClient.Builder sharedBuilder(BackoffHttp http) {
			return RestClient.builder().requestInterceptor(http.interceptor("downstream"));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PrototypeBuilder {

		@Bean
		@Scope("prototype")
		WebClient.Builder customersBuilder(ReactiveBackoffHttp http) {
			return http.builder(WebClient.builder(), "downstream");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ClientsFromCopies {

		@Bean
		WebClient.Builder sharedWebClientBuilder() {
			return WebClient.builder();
		}

		@Bean
		RestClient.Builder sharedRestClientBuilder() {
			return RestClient.builder();
		}

		@Bean
		WebClient webClient(WebClient.Builder sharedWebClientBuilder, ReactiveBackoffHttp http) {
			return http.builder(sharedWebClientBuilder, "downstream").build();
		}

		@Bean
		RestClient restClient(RestClient.Builder sharedRestClientBuilder, BackoffHttp http) {
			return http.builder(sharedRestClientBuilder, "downstream").build();
		}

	}

}
