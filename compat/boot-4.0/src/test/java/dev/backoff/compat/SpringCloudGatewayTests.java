package dev.backoff.compat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.BackoffFailureAnalyzer;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.http.BackoffHttp;
import dev.backoff.spring.http.ReactiveBackoffHttp;
import io.micrometer.core.instrument.MeterRegistry;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.client.loadbalancer.BlockingLoadBalancerInterceptor;
import org.springframework.cloud.client.loadbalancer.DeferringLoadBalancerInterceptor;
import org.springframework.cloud.client.loadbalancer.reactive.DeferringLoadBalancerExchangeFilterFunction;
import org.springframework.cloud.client.loadbalancer.reactive.LoadBalancedExchangeFilterFunction;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The starter on Spring Boot 4.0 with Spring Cloud 2025.1 (which runs on 4.0 only): a real
 * WebFlux application, its {@code @LoadBalanced} builders, a discovery client listing two
 * loopback instances of service {@code customers}; a {@code @Backoff} method, meters and the
 * endpoint over HTTP.
 */
@SpringBootTest(classes = Gateway.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SpringCloudGatewayTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private static final Path HTTP_CLIENTS_PAGE = Path.of("../../docs/http-clients.md");

	/** The ports of the instances, in the order the requests came. */
	private static final List<Integer> requests = new CopyOnWriteArrayList<>();

	/** Whether the next request, to whichever instance, is answered 503. */
	private static final AtomicBoolean failNext = new AtomicBoolean();

	private static final List<HttpServer> instances = List.of(instance(), instance());

	@Autowired
	private MeterRegistry registry;

	@Autowired
	@Qualifier("customersClient")
	private WebClient customersClient;

	@Autowired
	@Qualifier("unretriedClient")
	private WebClient unretriedClient;

	@Autowired
	@Qualifier("customersRestClient")
	private RestClient customersRestClient;

	@Autowired
	@Qualifier("unretriedRestClient")
	private RestClient unretriedRestClient;

	@Autowired
	private Gateway.Inventory inventory;

	@Value("${local.server.port}")
	private int port;

	@DynamicPropertySource
	static void customersInstances(DynamicPropertyRegistry registry) {
		for (int i = 0; i < instances.size(); i++) {
			int instancePort = instances.get(i).getAddress().getPort();
			registry.add("spring.cloud.discovery.client.simple.instances.customers[" + i + "].uri",
					() -> "http://127.0.0.1:" + instancePort);
		}
	}

	@AfterAll
	static void stopInstances() {
		instances.forEach((instance) -> instance.stop(0));
	}

	@BeforeEach
	void clear() {
		requests.clear();
	}

	@Test
	void runsOnSpringBootFour() {
		assertThat(SpringBootVersion.getVersion()).startsWith("4.0.");
	}

	@Test
	void aWebClientRetryGoesToTheOtherInstanceAndTheBuildersOtherClientIsNotCounted() {
		double before = calls("customers GET");
		failNext.set(true);
		assertThat(this.customersClient.get().uri("/owners").retrieve().bodyToMono(String.class).block(TIMEOUT))
			.isEqualTo("ok");
		assertThat(requests).hasSize(2).doesNotHaveDuplicates();
		assertThat(calls("customers GET") - before).isEqualTo(1);
		failNext.set(true);
		assertThatExceptionOfType(WebClientResponseException.ServiceUnavailable.class).isThrownBy(
				() -> this.unretriedClient.get().uri("/owners").retrieve().bodyToMono(String.class).block(TIMEOUT));
		assertThat(requests).hasSize(3);
		assertThat(calls("customers GET") - before).isEqualTo(1);
	}

	@Test
	void aRestClientRetryGoesToTheOtherInstanceAndTheBuildersOtherClientIsNotCounted() {
		double before = calls("customers GET");
		failNext.set(true);
		assertThat(this.customersRestClient.get().uri("/owners").retrieve().body(String.class)).isEqualTo("ok");
		assertThat(requests).hasSize(2).doesNotHaveDuplicates();
		assertThat(calls("customers GET") - before).isEqualTo(1);
		failNext.set(true);
		assertThatExceptionOfType(HttpServerErrorException.ServiceUnavailable.class)
			.isThrownBy(() -> this.unretriedRestClient.get().uri("/owners").retrieve().body(String.class));
		assertThat(requests).hasSize(3);
		assertThat(calls("customers GET") - before).isEqualTo(1);
	}

	@Test
	void aBackoffMethodIsRetriedMeteredAndListedByTheEndpoint() {
		assertThat(this.inventory.count()).isEqualTo("7");
		assertThat(this.registry.get("backoff.calls").tag("policy", "inventory").tag("method", "Inventory.count")
			.tag("outcome", "success_after_retry").counter().count()).isEqualTo(1);
		Map<String, Object> body = WebClient.create("http://localhost:" + this.port)
			.get()
			.uri("/actuator/backoff")
			.retrieve()
			.bodyToMono(new ParameterizedTypeReference<Map<String, Object>>() {
			})
			.block(TIMEOUT);
		assertThat(body).extractingByKey("policies")
			.extracting("inventory")
			.extracting("methods")
			.asInstanceOf(InstanceOfAssertFactories.MAP)
			.containsKey("Inventory.count");
	}

	@Test
	void aFilterAfterTheLoadBalancersStopsStartUpNamingTheClient() {
		contextRunner().withUserConfiguration(FilterAfterBalancer.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure())
				.isInstanceOf(BackoffConfigurationException.class)
				.hasMessageStartingWith("WebClient bean 'customersClient' was 'customers', but has Backoff's filter for "
						+ "policy customers after a load balancer's (DeferringLoadBalancerExchangeFilterFunction), so "
						+ "every retry would go to the instance that the first attempt chose")
				.hasMessageContaining("ReactiveBackoffHttp.builder(builder, \"customers\")");
		});
	}

	@Test
	void anInterceptorAfterTheLoadBalancersStopsStartUpNamingTheClient() {
		contextRunner().withUserConfiguration(InterceptorAfterBalancer.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure())
				.isInstanceOf(BackoffConfigurationException.class)
				.hasMessageStartingWith("RestClient bean 'customersRestClient' was 'customers', but has Backoff's "
						+ "interceptor for policy customers after a load balancer's (DeferringLoadBalancerInterceptor)")
				.hasMessageContaining("BackoffHttp.builder(builder, \"customers\")");
		});
	}

	@Test
	void aRestTemplateWithTheInterceptorAfterTheLoadBalancersStopsStartUpAndOneWithItFirstStarts() {
		contextRunner().withUserConfiguration(TemplateAfterBalancer.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).isInstanceOf(BackoffConfigurationException.class)
				.hasMessageStartingWith("RestTemplate bean 'customersTemplate' was 'customers', but has Backoff's "
						+ "interceptor for policy customers after a load balancer's (DeferringLoadBalancerInterceptor)");
		});
		contextRunner().withUserConfiguration(TemplateWithBackoffFirst.class)
			.run((context) -> assertThat(context).hasNotFailed().hasBean("customersTemplate"));
	}

	@Test
	void anUnknownPolicyIsReportedWithTheCallAndTheMethodThatMadeIt() {
		contextRunner().withBean(WebClient.Builder.class, WebClient::builder)
			.withUserConfiguration(CustomersClientConfiguration.class)
			.run((context) -> {
				FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).isEqualTo(String.join(System.lineSeparator(),
						"Invalid Backoff configuration:", "",
						"    Where:    ReactiveBackoffHttp.builder(builder, \"customer\") in "
								+ "CustomersClientConfiguration.customersClient (CustomersClientConfiguration.java:16)",
						"    Value:    customer",
						"    Rule:     must name a policy under backoff.policies (configured: customers) or defaults"));
				assertThat(Files.readString(HTTP_CLIENTS_PAGE)).contains(analysis.getDescription());
			});
	}

	@Test
	void theLoadBalancerReportIsTheOneTheDocsShow() {
		contextRunner().withUserConfiguration(FilterAfterBalancer.class).run((context) -> {
			FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(Files.readString(HTTP_CLIENTS_PAGE)).contains(analysis.getDescription());
		});
	}

	private static ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class))
			.withPropertyValues("backoff.policies.customers.max-attempts=3");
	}

	private double calls(String method) {
		return this.registry.find("backoff.calls").tag("method", method).counters().stream()
			.mapToDouble((counter) -> counter.count()).sum();
	}

	private static HttpServer instance() {
		try {
			HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
			server.createContext("/", (exchange) -> answer(exchange, server.getAddress().getPort()));
			server.start();
			return server;
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void answer(HttpExchange exchange, int port) throws IOException {
		requests.add(port);
		boolean fail = failNext.getAndSet(false);
		byte[] body = (fail ? "down" : "ok").getBytes(StandardCharsets.UTF_8);
		exchange.sendResponseHeaders(fail ? 503 : 200, body.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(body);
		}
	}

	/** What docs/http-clients.md showed before: Backoff's filter added after the load balancer's. */
	@Configuration(proxyBeanMethods = false)
	static class FilterAfterBalancer {

		@Bean
		WebClient customersClient(ReactiveBackoffHttp http) {
			// The builder as Spring Cloud leaves a @LoadBalanced one: its filter added at post-processing.
			WebClient.Builder loadBalanced = WebClient.builder()
				.filter(new DeferringLoadBalancerExchangeFilterFunction<>(
						new StaticListableBeanFactory().getBeanProvider(LoadBalancedExchangeFilterFunction.class)));
			return loadBalanced.filter(http.filter("customers")).build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TemplateAfterBalancer {

		@Bean
		RestTemplate customersTemplate(BackoffHttp http) {
			RestTemplate template = new RestTemplate();
			template.getInterceptors().add(loadBalancerInterceptor());
			template.getInterceptors().add(http.interceptor("customers"));
			return template;
		}

	}

	/** What docs/http-clients.md shows for a RestTemplate whose load balancer's interceptor is there already. */
	@Configuration(proxyBeanMethods = false)
	static class TemplateWithBackoffFirst {

		@Bean
		RestTemplate customersTemplate(BackoffHttp http) {
			RestTemplate template = new RestTemplate();
			template.getInterceptors().add(loadBalancerInterceptor());
			template.getInterceptors().add(0, http.interceptor("customers"));
			return template;
		}

	}

	private static DeferringLoadBalancerInterceptor loadBalancerInterceptor() {
		return new DeferringLoadBalancerInterceptor(
				new StaticListableBeanFactory().getBeanProvider(BlockingLoadBalancerInterceptor.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class InterceptorAfterBalancer {

		@Bean
		RestClient customersRestClient(BackoffHttp http) {
			RestClient.Builder loadBalanced = RestClient.builder()
				.requestInterceptor(new DeferringLoadBalancerInterceptor(
						new StaticListableBeanFactory().getBeanProvider(BlockingLoadBalancerInterceptor.class)));
			return loadBalanced.requestInterceptor(http.interceptor("customers")).build();
		}

	}

}
