package dev.backoff.spring.http;

import java.io.ByteArrayInputStream;
import java.net.http.HttpClient;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.http.UploadServer.First;
import dev.backoff.spring.http.UploadServer.Received;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The WebClient filter's retry of an 8 MB upload, checked on the wire: a raw
 * {@link UploadServer} resets the first attempt after reading 16 KB of its body (or answers it
 * 503) and records what every later attempt delivered and whether it was complete. A retry
 * sends the whole body byte for byte, or fails with {@link RequestBodyNotRepeatableException}
 * before the server can take it for a complete request. Through both WebClient connectors, for
 * bodies whose bytes repeat (which defeat a checksum) and random ones.
 */
class WebClientRetryBodyTests {

	private static final int SIZE = 8 * 1024 * 1024;

	/** Only a safety net: each call ends long before. */
	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private static final String ADVICE = ". Give WebClient a body it can write again whole with its length "
			+ "known (bodyValue, or a publisher that replays and a Content-Length header), or do not retry this "
			+ "request.";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withPropertyValues("backoff.policies.uploads.max-attempts=3", "backoff.policies.uploads.base-delay=1ms",
				"backoff.policies.uploads.jitter=none");

	private final AtomicInteger attempts = new AtomicInteger();

	private UploadServer server;

	@AfterEach
	void stopServer() throws Exception {
		if (this.server != null) {
			this.server.close();
		}
	}

	static Stream<Arguments> connectorsAndBodies() {
		return Stream.of(Connector.values())
			.flatMap((connector) -> Stream.of(Bytes.values()).map((bytes) -> Arguments.of(connector, bytes)));
	}

	@ParameterizedTest(name = "{0}, {1}")
	@MethodSource("connectorsAndBodies")
	void aRetryOfAOneShotStreamFailsAsNotRepeatableAndTheServerNeverGetsACompleteRequest(Connector connector,
			Bytes bytes) {
		this.runner.run((context) -> {
			this.server = new UploadServer(First.RESET);
			byte[] upload = bytes.upload();
			// One stream for every subscription, as real code often has: a retry reads on where the reset left it.
			ByteArrayInputStream stream = new ByteArrayInputStream(upload);
			Flux<DataBuffer> body = DataBufferUtils.readInputStream(() -> stream, DefaultDataBufferFactory.sharedInstance,
					8192);
			Throwable failure = catchThrowable(() -> webClient(context, connector).put().uri("/upload")
				.body(body, DataBuffer.class).retrieve().toBodilessEntity().block(TIMEOUT));
			List<Received> received = this.server.received(2);
			assertThat(received).as("what the server received").noneMatch(Received::complete);
			assertThat(received.get(0).chunked()).as("the request's framing").isTrue();
			assertThat(failure).rootCause()
				.isInstanceOf(RequestBodyNotRepeatableException.class)
				.hasMessageStartingWith("The body of PUT " + this.server.url() + "/upload could not be sent again "
						+ "for a retry: an earlier attempt wrote ")
				.hasMessageEndingWith(" bytes of it and this one has no Content-Length to show it whole" + ADVICE);
			assertThat(this.attempts).hasValue(2);
		});
	}

	@ParameterizedTest(name = "{0}, {1}")
	@MethodSource("connectorsAndBodies")
	void aRetryOfAOneShotStreamWithAContentLengthFailsBeforeTheServerHasAllItsBytes(Connector connector,
			Bytes bytes) {
		this.runner.run((context) -> {
			this.server = new UploadServer(First.RESET);
			byte[] upload = bytes.upload();
			ByteArrayInputStream stream = new ByteArrayInputStream(upload);
			Flux<DataBuffer> body = DataBufferUtils.readInputStream(() -> stream, DefaultDataBufferFactory.sharedInstance,
					8192);
			Throwable failure = catchThrowable(() -> webClient(context, connector).put().uri("/upload")
				.contentLength(SIZE).body(body, DataBuffer.class).retrieve().toBodilessEntity().block(TIMEOUT));
			List<Received> received = this.server.received(2);
			assertThat(received).as("what the server received").noneMatch(Received::complete);
			assertThat(received.get(1).headers()).as("the retry's headers").containsEntry("content-length",
					String.valueOf(SIZE));
			assertThat(failure).rootCause()
				.isInstanceOf(RequestBodyNotRepeatableException.class)
				.hasMessageStartingWith("The body of PUT " + this.server.url() + "/upload could not be sent again "
						+ "for a retry: ")
				.hasMessageEndingWith(ADVICE);
			assertThat(this.attempts).hasValue(2);
		});
	}

	@ParameterizedTest(name = "{0}, {1}")
	@MethodSource("connectorsAndBodies")
	void aRetryWithMoreBytesThanItsContentLengthFailsBeforeTheServerHasThemAll(Connector connector, Bytes bytes) {
		this.runner.run((context) -> {
			this.server = new UploadServer(First.RESET);
			byte[] upload = bytes.upload();
			AtomicInteger subscriptions = new AtomicInteger();
			// The retry's body has the declared bytes and then 8 KB more.
			Flux<DataBuffer> body = Flux.defer(() -> (subscriptions.incrementAndGet() == 1) ? replaying(upload)
					: replaying(upload).concatWith(replaying(new byte[8192])));
			Throwable failure = catchThrowable(() -> webClient(context, connector).put().uri("/upload")
				.contentLength(SIZE).body(body, DataBuffer.class).retrieve().toBodilessEntity().block(TIMEOUT));
			List<Received> received = this.server.received(2);
			assertThat(received).as("what the server received").noneMatch(Received::complete);
			assertThat(failure).rootCause()
				.isInstanceOf(RequestBodyNotRepeatableException.class)
				.hasMessageEndingWith(": this one's Content-Length is " + SIZE + " but it has more bytes" + ADVICE);
			assertThat(this.attempts).hasValue(2);
		});
	}

	@ParameterizedTest(name = "{0}, {1}")
	@MethodSource("connectorsAndBodies")
	void aRetryOfABodyValueSendsAllItsBytesAndTheClientGetsTheAnswer(Connector connector, Bytes bytes) {
		this.runner.run((context) -> {
			this.server = new UploadServer(First.RESET);
			byte[] upload = bytes.upload();
			ResponseEntity<Void> response = webClient(context, connector).put().uri("/upload").bodyValue(upload)
				.retrieve().toBodilessEntity().block(TIMEOUT);
			assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
			List<Received> received = this.server.received(2);
			assertThat(received.get(0).complete()).as(received.get(0).toString()).isFalse();
			assertThat(received.get(1).complete()).as(received.get(1).toString()).isTrue();
			assertThat(received.get(1).headers()).containsEntry("content-length", String.valueOf(SIZE));
			assertThat(received.get(1).body()).as("the retry's body").hasSize(SIZE).isEqualTo(upload);
			assertThat(this.attempts).hasValue(2);
		});
	}

	static Stream<Arguments> connectorsAndFirstAttempts() {
		return Stream.of(Connector.values())
			.flatMap((connector) -> Stream.of(First.values()).map((first) -> Arguments.of(connector, first)));
	}

	@ParameterizedTest(name = "{0}, first attempt {1}")
	@MethodSource("connectorsAndFirstAttempts")
	void aRetryOfAReplayingBodyWithAContentLengthIsSentWhole(Connector connector, First first) {
		this.runner.run((context) -> {
			this.server = new UploadServer(first);
			byte[] upload = Bytes.ZEROS.upload();
			ResponseEntity<Void> response = webClient(context, connector).put().uri("/upload").contentLength(SIZE)
				.body(replaying(upload), DataBuffer.class).retrieve().toBodilessEntity().block(TIMEOUT);
			assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
			List<Received> received = this.server.received(2);
			assertThat(received.get(0).complete()).as(received.get(0).toString()).isEqualTo(first == First.UNAVAILABLE);
			assertThat(received.get(1).complete()).as(received.get(1).toString()).isTrue();
			assertThat(received.get(1).headers()).containsEntry("content-length", String.valueOf(SIZE));
			assertThat(received.get(1).body()).as("the retry's body").hasSize(SIZE).isEqualTo(upload);
			assertThat(this.attempts).hasValue(2);
		});
	}

	@ParameterizedTest(name = "{0}, {1}")
	@MethodSource("connectorsAndBodies")
	void aRetryOfAReplayingChunkedBodyCutOffMidWayFailsAsNotRepeatable(Connector connector, Bytes bytes) {
		this.runner.run((context) -> {
			this.server = new UploadServer(First.RESET);
			Throwable failure = catchThrowable(() -> webClient(context, connector).put().uri("/upload")
				.body(replaying(bytes.upload()), DataBuffer.class).retrieve().toBodilessEntity().block(TIMEOUT));
			List<Received> received = this.server.received(2);
			assertThat(received).as("what the server received").noneMatch(Received::complete);
			assertThat(failure).rootCause()
				.isInstanceOf(RequestBodyNotRepeatableException.class)
				.hasMessageEndingWith(" bytes of it and this one has no Content-Length to show it whole" + ADVICE);
			assertThat(this.attempts).hasValue(2);
		});
	}

	@ParameterizedTest(name = "{0}, {1}")
	@MethodSource("connectorsAndBodies")
	void aRetryOfAReplayingChunkedBodyWrittenWholeAndAnswered503IsSentWhole(Connector connector, Bytes bytes) {
		this.runner.run((context) -> {
			this.server = new UploadServer(First.UNAVAILABLE);
			byte[] upload = bytes.upload();
			ResponseEntity<Void> response = webClient(context, connector).put().uri("/upload")
				.body(replaying(upload), DataBuffer.class).retrieve().toBodilessEntity().block(TIMEOUT);
			assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
			List<Received> received = this.server.received(2);
			assertThat(received).allSatisfy((request) -> {
				assertThat(request.complete()).as(request.toString()).isTrue();
				assertThat(request.chunked()).as(request.toString()).isTrue();
				assertThat(request.body()).as(request.toString()).hasSize(SIZE).isEqualTo(upload);
			});
			assertThat(this.attempts).hasValue(2);
		});
	}

	/** A cold publisher: every subscription writes the body from its start, 8 KB at a time. */
	private static Flux<DataBuffer> replaying(byte[] upload) {
		return Flux.range(0, upload.length / 8192)
			.map((i) -> DefaultDataBufferFactory.sharedInstance.wrap(ByteBuffer.wrap(upload, i * 8192, 8192).slice()));
	}

	private WebClient webClient(AssertableApplicationContext context, Connector connector) {
		return WebClient.builder()
			.baseUrl(this.server.url())
			.clientConnector(connector.create())
			.filter(context.getBean(ReactiveBackoffHttp.class).filter("uploads"))
			.filter((request, next) -> {
				this.attempts.incrementAndGet();
				return next.exchange(request);
			})
			.build();
	}

	enum Connector {

		REACTOR_NETTY {
			@Override
			ClientHttpConnector create() {
				return new ReactorClientHttpConnector(reactor.netty.http.client.HttpClient.create());
			}
		},

		JDK {
			@Override
			ClientHttpConnector create() {
				return new JdkClientHttpConnector(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
			}
		};

		abstract ClientHttpConnector create();

	}

	enum Bytes {

		/** Periodic at its simplest: any part is as any other as long, so no checksum tells a replay from the rest. */
		ZEROS {
			@Override
			byte[] upload() {
				return new byte[SIZE];
			}
		},

		RANDOM {
			@Override
			byte[] upload() {
				byte[] upload = new byte[SIZE];
				new SplittableRandom(29).nextBytes(upload);
				return upload;
			}
		};

		abstract byte[] upload();

	}

}
