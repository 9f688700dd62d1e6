package dev.backoff.autoconfigure.web;

import java.util.concurrent.atomic.AtomicLong;

import dev.backoff.autoconfigure.BackoffOperation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.client.reactive.ClientHttpRequest;
import org.springframework.http.client.reactive.ClientHttpRequestDecorator;
import org.springframework.web.reactive.function.BodyInserter;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * {@link BackoffHttp#filter}: each subscription to an exchange is one call of the policy,
 * retried by resubscription as a {@code Mono}-returning {@code @Backoff} method is. Every
 * attempt exchanges again through the filters after this one, and writes the body again;
 * a retry whose body comes out empty where the first attempt's was not fails with a message
 * instead of sending it (a one-shot publisher, a consumed stream).
 */
final class BackoffExchangeFilter implements ExchangeFilterFunction {

	private static final @Nullable Object[] NO_ARGUMENTS = {};

	private final ClientOperations operations;

	BackoffExchangeFilter(ClientOperations operations) {
		this.operations = operations;
	}

	@Override
	@SuppressWarnings("unchecked")
	public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
		if (!this.operations.isRetryable(request.method(), request.headers())) {
			return next.exchange(request);
		}
		BackoffOperation operation = this.operations.get(request.method());
		return Mono.defer(() -> {
			Call call = new Call(request);
			Mono<Object> retried;
			try {
				retried = (Mono<Object>) operation.invoke(() -> call.attempt(next), null, null, NO_ARGUMENTS);
			}
			catch (Throwable ex) {
				// A Mono-returning operation hands every failure to its subscriber; this is a bug.
				return Mono.error(ex);
			}
			return retried.cast(ClientResponse.class)
				.onErrorResume((failure) -> failure == call.failure, (failure) -> Mono.just(call.response));
		});
	}

	/** One subscription's attempts: the body each wrote, and the last error response. */
	private static final class Call {

		private final ClientRequest request;

		/** Bytes the first attempt's body wrote; -1 before it has written. */
		private final AtomicLong firstBody = new AtomicLong(-1);

		private volatile @Nullable Throwable failure;

		private volatile @Nullable ClientResponse response;

		Call(ClientRequest request) {
			this.request = request;
		}

		Mono<ClientResponse> attempt(ExchangeFunction next) {
			BodyInserter<?, ? super ClientHttpRequest> body = this.request.body();
			ClientRequest counted = ClientRequest.from(this.request)
				.body((message, context) -> body.insert(new CountingRequest(message), context))
				.build();
			return next.exchange(counted).flatMap(this::judge);
		}

		/** An error response becomes the attempt's failure, read whole, as WebClient's retrieve() would throw it. */
		private Mono<ClientResponse> judge(ClientResponse response) {
			if (!response.statusCode().isError()) {
				return Mono.just(response);
			}
			return response.bodyToMono(byte[].class).defaultIfEmpty(new byte[0]).flatMap((content) -> {
				ClientResponse buffered = ClientResponse.create(response.statusCode(), response.strategies())
					.headers((headers) -> headers.addAll(response.headers().asHttpHeaders()))
					.cookies((cookies) -> cookies.addAll(response.cookies()))
					.request(response.request())
					.body(Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(content))))
					.build();
				WebClientResponseException failure = WebClientResponseException.create(response.statusCode(),
						statusText(response), response.headers().asHttpHeaders(), content,
						response.headers().contentType().map((type) -> type.getCharset()).orElse(null),
						response.request());
				this.response = buffered;
				this.failure = failure;
				return Mono.error(failure);
			});
		}

		private static String statusText(ClientResponse response) {
			return (response.statusCode() instanceof org.springframework.http.HttpStatus status)
					? status.getReasonPhrase() : "";
		}

		/** Counts the bytes of a body as it is written, and stops a retry's empty one. */
		private final class CountingRequest extends ClientHttpRequestDecorator {

			CountingRequest(ClientHttpRequest delegate) {
				super(delegate);
			}

			@Override
			public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
				AtomicLong written = new AtomicLong();
				Flux<DataBuffer> counted = Flux.<DataBuffer>from(body)
					.doOnNext((buffer) -> written.addAndGet(buffer.readableByteCount()))
					.concatWith(Mono.defer(() -> check(written.get())));
				return super.writeWith(counted);
			}

			@Override
			public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
				return writeWith(Flux.from(body).concatMap(Flux::from));
			}

			@Override
			public Mono<Void> setComplete() {
				return check(0).then(super.setComplete());
			}

			/** Records the first body's size; an empty retry of a non-empty body is an error. */
			private <T> Mono<T> check(long written) {
				if (Call.this.firstBody.compareAndSet(-1, written) || written > 0 || Call.this.firstBody.get() == 0) {
					return Mono.empty();
				}
				return Mono.error(new RequestBodyNotRepeatableException("The body of " + Call.this.request.method() + " "
						+ Call.this.request.url() + " could not be sent again for a retry: the first attempt wrote "
						+ Call.this.firstBody.get() + " bytes, this one none. Give WebClient a body it can write "
						+ "more than once (bodyValue, or a publisher that replays), or do not retry this request."));
			}

		}

	}

}
