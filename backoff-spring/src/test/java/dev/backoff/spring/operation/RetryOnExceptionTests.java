package dev.backoff.spring.operation;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import com.sun.net.httpserver.HttpServer;
import dev.backoff.Backoff;
import dev.backoff.RecordingSleeper;
import dev.backoff.spring.EnabledBackoff;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@code retryOnException} / {@code retry-on-exception}: SpEL on {@code #exception} decides
 * from what a failure says. {@code abort-on} wins, {@code retry-on} narrows, the expression
 * replaces the default classification (the HTTP one here: spring-web is present), so it may
 * widen it; an expression that throws ends the call with the caller's own failure and one
 * warning.
 */
@ExtendWith(OutputCaptureExtension.class)
class RetryOnExceptionTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(RecordingSleeper.class)
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
		.withBean("transientErrors", TransientErrors.class)
		.withPropertyValues("backoff.policies.codes.max-attempts=3");

	@Test
	void anInlineExpressionRetriesWhatItAcceptsAndNothingElse() {
		this.runner.withBean(CodedClient.class).run((context) -> {
			CodedClient client = context.getBean(CodedClient.class);
			client.fail("THROTTLED", 2);
			assertThat(client.inline()).isEqualTo("ok after 3");
			client.fail("INVALID", 2);
			assertThatExceptionOfType(Coded.class).isThrownBy(client::inline).withMessage("INVALID");
			assertThat(client.calls()).isEqualTo(4);
		});
	}

	@Test
	void anExpressionMayCallABean() {
		this.runner.withBean(CodedClient.class).run((context) -> {
			CodedClient client = context.getBean(CodedClient.class);
			client.fail("THROTTLED", 1);
			assertThat(client.viaBean()).isEqualTo("ok after 2");
			client.fail("INVALID", 1);
			assertThatExceptionOfType(Coded.class).isThrownBy(client::viaBean);
			assertThat(context.getBean(TransientErrors.class).asked()).isEqualTo(2);
		});
	}

	@Test
	void aYamlPolicySetsItAndTheAttributeOverridesIt() {
		this.runner.withPropertyValues("backoff.policies.codes.retry-on-exception=#exception.code == 'INVALID'")
			.withBean(CodedClient.class)
			.run((context) -> {
				CodedClient client = context.getBean(CodedClient.class);
				client.fail("INVALID", 1);
				assertThat(client.named()).isEqualTo("ok after 2");
				client.fail("INVALID", 1);
				assertThatExceptionOfType(Coded.class).isThrownBy(client::namedOverridden);
				client.fail("THROTTLED", 1);
				assertThat(client.namedOverridden()).isEqualTo("ok after 5");
			});
	}

	@Test
	void abortOnStillWinsOverTheExpression() {
		this.runner.withBean(CodedClient.class).run((context) -> {
			CodedClient client = context.getBean(CodedClient.class);
			client.fail("THROTTLED", 1);
			assertThatExceptionOfType(Coded.class).isThrownBy(client::aborted);
			assertThat(client.calls()).isOne();
		});
	}

	@Test
	void completionStageAndMonoMethodsAskTheExpressionToo() {
		this.runner.withBean(CodedClient.class).run((context) -> {
			CodedClient client = context.getBean(CodedClient.class);
			client.fail("THROTTLED", 2);
			assertThat(client.future().get(10, TimeUnit.SECONDS)).isEqualTo("ok after 3");
			client.fail("INVALID", 2);
			assertThat(catchThrowable(() -> client.future().get(10, TimeUnit.SECONDS)))
				.isInstanceOf(ExecutionException.class)
				.hasCauseInstanceOf(Coded.class);
			client.fail("THROTTLED", 2);
			assertThat(client.mono().block(TIMEOUT)).isEqualTo("ok after 7");
		});
	}

	@Test
	void anExpressionThatThrowsEndsTheCallWithTheCallersFailureAndOneWarning(CapturedOutput output) {
		this.runner.withBean(CodedClient.class).run((context) -> {
			CodedClient client = context.getBean(CodedClient.class);
			client.fail("THROTTLED", 1);
			Throwable thrown = catchThrowable(client::broken);
			assertThat(thrown).isInstanceOf(Coded.class).hasMessage("THROTTLED");
			assertThat(thrown.getSuppressed()).hasSize(1);
			assertThat(client.calls()).isOne();
			assertThat(context.getBean(MeterRegistry.class)
				.get("backoff.calls")
				.tag("method", "CodedClient.broken")
				.tag("outcome", "not_retryable")
				.counter()
				.count()).isEqualTo(1);
			assertThat(output.getOut().lines().filter((line) -> line.contains("retryOnException '#exception.nope'")))
				.singleElement()
				.satisfies((line) -> assertThat(line).contains("WARN")
					.contains("@Backoff(defaults)")
					.contains("@Backoff(retryOnException) on CodedClient.broken"));
		});
	}

	@Test
	void anExpressionWidensTheHttpClassificationToAConflictOverRealHttp() throws IOException {
		// 409 Conflict, then 200: the HTTP classification does not retry a 409; the expression does.
		AtomicInteger requests = new AtomicInteger();
		HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		server.createContext("/orders", (exchange) -> {
			boolean conflict = requests.incrementAndGet() <= 2;
			byte[] body = (conflict ? "busy" : "placed").getBytes(StandardCharsets.UTF_8);
			exchange.sendResponseHeaders(conflict ? 409 : 200, body.length);
			exchange.getResponseBody().write(body);
			exchange.close();
		});
		server.start();
		try {
			RestClient http = RestClient.builder()
				.requestFactory(new JdkClientHttpRequestFactory())
				.baseUrl("http://127.0.0.1:" + server.getAddress().getPort())
				.build();
			this.runner.withBean(Orders.class, () -> new Orders(http)).run((context) -> {
				Orders orders = context.getBean(Orders.class);
				assertThatExceptionOfType(HttpClientErrorException.Conflict.class).isThrownBy(orders::byDefault);
				assertThat(requests.get()).isOne();
				assertThat(orders.widened()).isEqualTo("placed");
				assertThat(requests.get()).isEqualTo(3);
			});
		}
		finally {
			server.stop(0);
		}
	}

	static class Orders {

		private final RestClient http;

		Orders(RestClient http) {
			this.http = http;
		}

		@Backoff
		public String byDefault() {
			return this.http.post().uri("/orders").retrieve().body(String.class);
		}

		@Backoff(retryOnException = "#exception.statusCode.value() == 409")
		public String widened() {
			return this.http.post().uri("/orders").retrieve().body(String.class);
		}

	}

	/** The seed documents' {@code isTransient(err)}, as a bean. */
	static class TransientErrors implements Predicate<Throwable> {

		private final AtomicInteger asked = new AtomicInteger();

		@Override
		public boolean test(Throwable failure) {
			this.asked.incrementAndGet();
			return failure instanceof Coded coded && coded.getCode().equals("THROTTLED");
		}

		int asked() {
			return this.asked.get();
		}

	}

	static class CodedClient {

		private final AtomicInteger calls = new AtomicInteger();

		private volatile String code = "THROTTLED";

		private volatile int failuresLeft;

		void fail(String code, int times) {
			this.code = code;
			this.failuresLeft = times;
		}

		int calls() {
			return this.calls.get();
		}

		@Backoff(maxAttempts = "5", retryOnException = "#exception.code == 'THROTTLED'")
		public String inline() {
			return attempt();
		}

		@Backoff(retryOnException = "@transientErrors.test(#exception)")
		public String viaBean() {
			return attempt();
		}

		@Backoff("codes")
		public String named() {
			return attempt();
		}

		@Backoff(value = "codes", retryOnException = "#exception.code == 'THROTTLED'")
		public String namedOverridden() {
			return attempt();
		}

		@Backoff(abortOn = Coded.class, retryOnException = "true")
		public String aborted() {
			return attempt();
		}

		@Backoff(retryOnException = "#exception.nope")
		public String broken() {
			return attempt();
		}

		@Backoff(retryOnException = "#exception.code == 'THROTTLED'")
		public CompletableFuture<String> future() {
			try {
				return CompletableFuture.completedFuture(attempt());
			}
			catch (Coded ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}

		@Backoff(retryOnException = "#exception.code == 'THROTTLED'")
		public Mono<String> mono() {
			return Mono.fromCallable(this::attempt);
		}

		private String attempt() {
			int call = this.calls.incrementAndGet();
			if (this.failuresLeft > 0) {
				this.failuresLeft--;
				throw new Coded(this.code);
			}
			return "ok after " + call;
		}

	}

	/** One exception type for every failure, with a code inside, as many SDKs throw. */
	public static class Coded extends RuntimeException {

		private final String code;

		Coded(String code) {
			super(code);
			this.code = code;
		}

		public String getCode() {
			return this.code;
		}

	}

}
