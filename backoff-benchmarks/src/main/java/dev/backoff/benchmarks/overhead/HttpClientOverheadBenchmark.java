package dev.backoff.benchmarks.overhead;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import dev.backoff.spring.http.BackoffHttp;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.RestClient;

/**
 * The cost of {@link BackoffHttp#interceptor} on a request that succeeds at once: a
 * {@code RestClient} GET against an in-memory request factory (no network, so that the client's
 * own work is what is compared), plain, with a no-op interceptor, and with Backoff's (metrics on).
 * Over real HTTP a request costs tens of microseconds or more; this isolates what Backoff adds.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HttpClientOverheadBenchmark {

	@State(Scope.Benchmark)
	public static class Clients {

		/**
		 * The application: Backoff's auto-configurations alone ({@code none}); an application
		 * with the actuator and no tracer, whose clients are observed as Spring Boot's
		 * {@code RestClient.Builder} observes them ({@code actuator}); the same with Micrometer
		 * Tracing's OpenTelemetry bridge, every trace sampled ({@code tracing}).
		 */
		@Param({ "none", "actuator", "tracing" })
		public String application = "none";

		ConfigurableApplicationContext context;

		RestClient plain;

		RestClient noOpInterceptor;

		RestClient backoff;

		@Setup
		public void start() {
			this.context = switch (this.application) {
				case "none" -> context();
				case "actuator" -> Contexts.backoffActuator(Contexts.NO_TRACER, MAX_ATTEMPTS);
				case "tracing" -> Contexts.backoffActuator("management.tracing.sampling.probability=1.0", MAX_ATTEMPTS);
				default -> throw new IllegalArgumentException("No application '" + this.application + "'");
			};
			ObservationRegistry registry = this.context.getBeanProvider(ObservationRegistry.class)
				.getIfAvailable(() -> ObservationRegistry.NOOP);
			ClientHttpRequestInterceptor noOp = (request, body, execution) -> execution.execute(request, body);
			this.plain = client(null, registry);
			this.noOpInterceptor = client(noOp, registry);
			this.backoff = client(this.context.getBean(BackoffHttp.class).interceptor("downstream"), registry);
		}

		@TearDown
		public void stop() {
			this.context.close();
		}

	}

	@Benchmark
	public String get_1_plain(Clients clients) {
		return clients.plain.get().uri("/quote").retrieve().body(String.class);
	}

	@Benchmark
	public String get_2_noOpInterceptor(Clients clients) {
		return clients.noOpInterceptor.get().uri("/quote").retrieve().body(String.class);
	}

	@Benchmark
	public String get_3_backoff(Clients clients) {
		return clients.backoff.get().uri("/quote").retrieve().body(String.class);
	}

	/** @return a Spring Boot context with Backoff's auto-configuration and metrics, one policy */
	private static final String MAX_ATTEMPTS = "backoff.policies.downstream.max-attempts=3";

	static ConfigurableApplicationContext context() {
		return new SpringApplicationBuilder(Config.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "spring.main.log-startup-info=false", "logging.level.root=warn",
					MAX_ATTEMPTS)
			.run();
	}

	/**
	 * @param interceptor the one interceptor, or {@code null} for none
	 * @param registry observes the client's requests, as Spring Boot's {@code RestClient.Builder} does
	 * @return a client of the in-memory server
	 */
	static RestClient client(ClientHttpRequestInterceptor interceptor, ObservationRegistry registry) {
		RestClient.Builder builder = RestClient.builder()
			.baseUrl("http://quotes")
			.requestFactory(new InMemory())
			.observationRegistry(registry);
		return (interceptor != null) ? builder.requestInterceptor(interceptor).build() : builder.build();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class })
	static class Config {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	/** Answers every request 200 "ok", in memory. */
	static final class InMemory implements ClientHttpRequestFactory {

		private static final byte[] OK = "ok".getBytes(StandardCharsets.UTF_8);

		@Override
		public ClientHttpRequest createRequest(URI uri, HttpMethod method) {
			return new Request(uri, method);
		}

		private record Request(URI uri, HttpMethod method, HttpHeaders headers, ByteArrayOutputStream body,
				Map<String, Object> attributes) implements ClientHttpRequest {

			Request(URI uri, HttpMethod method) {
				this(uri, method, new HttpHeaders(), new ByteArrayOutputStream(), new HashMap<>());
			}

			@Override
			public ClientHttpResponse execute() {
				return new Response();
			}

			@Override
			public OutputStream getBody() {
				return this.body;
			}

			@Override
			public HttpMethod getMethod() {
				return this.method;
			}

			@Override
			public URI getURI() {
				return this.uri;
			}

			@Override
			public Map<String, Object> getAttributes() {
				return this.attributes;
			}

			@Override
			public HttpHeaders getHeaders() {
				return this.headers;
			}

		}

		private static final class Response implements ClientHttpResponse {

			private final HttpHeaders headers = new HttpHeaders();

			Response() {
				this.headers.setContentLength(OK.length);
				this.headers.set(HttpHeaders.CONTENT_TYPE, "text/plain;charset=UTF-8");
			}

			@Override
			public HttpStatusCode getStatusCode() {
				return HttpStatus.OK;
			}

			@Override
			public String getStatusText() {
				return "OK";
			}

			@Override
			public HttpHeaders getHeaders() {
				return this.headers;
			}

			@Override
			public InputStream getBody() {
				return new ByteArrayInputStream(OK);
			}

			@Override
			public void close() {
			}

		}

	}

}
