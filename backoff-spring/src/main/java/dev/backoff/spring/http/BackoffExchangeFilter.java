package dev.backoff.spring.http;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32;

import dev.backoff.spring.operation.BackoffOperation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
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
 * attempt exchanges again through the filters after this one, and writes the body again. A
 * retry sends the whole body or fails with {@link RequestBodyNotRepeatableException} before
 * the body completes, never part of it. Bytes alone cannot tell a replay from a stream that
 * continues where the last attempt stopped (zeros, a repeating pattern), so after an attempt
 * that wrote any, a retry completes only at a known length: that of an earlier attempt that
 * wrote the body whole, or its own Content-Length; its first bytes must also match the
 * checksum of those an earlier attempt wrote. An error response is judged by its
 * status and headers, its body left unread: the last one reaches the client as it came, and
 * one that is retried or left behind is released.
 */
final class BackoffExchangeFilter implements ExchangeFilterFunction {

	private static final @Nullable Object[] NO_ARGUMENTS = {};

	private static final byte[] UNREAD = {};

	private final ClientOperations operations;

	BackoffExchangeFilter(ClientOperations operations) {
		this.operations = operations;
	}

	String getPolicy() {
		return this.operations.getPolicy();
	}

	@Override
	@SuppressWarnings("unchecked")
	public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
		if (!this.operations.isRetryable(request.method(), request.headers())) {
			return next.exchange(request);
		}
		BackoffOperation operation = this.operations.get(request.method());
		return Mono.defer(() -> {
			Call call = new Call(request, operation.getPolicy().getHedging().isEnabled());
			Mono<Object> retried;
			try {
				retried = (Mono<Object>) operation.invoke(() -> Mono.defer(() -> call.attempt(next)), null, null,
						NO_ARGUMENTS);
			}
			catch (Throwable ex) {
				// A Mono-returning operation hands every failure to its subscriber; this is a bug.
				return Mono.error(ex);
			}
			return retried.cast(ClientResponse.class)
				.onErrorResume(call::holds, (failure) -> Mono.justOrEmpty(call.take(failure)))
				.doOnNext(call::deliver)
				.doFinally((signal) -> call.release());
		});
	}

	/**
	 * One subscription's attempts: what their bodies wrote, and the error responses not yet
	 * released. A hedged call's copies run at once: then the answers of copies that lost are
	 * released too, when the call ends or, coming later, at once.
	 */
	private static final class Call {

		private final ClientRequest request;

		private final boolean hedged;

		/** The longest body an attempt wrote so far: its length, -1 before any wrote. */
		private volatile long written = -1;

		/** The checksum of those bytes. */
		private volatile long checksum;

		/** Whether that attempt wrote its body whole. */
		private volatile boolean whole;

		/** The error responses not yet released nor handed to the client, by their failures: made on the first. */
		private @Nullable Map<Throwable, ClientResponse> errors;

		/** A hedged call's answers, the loser's among them, until the call ends. */
		private @Nullable List<ClientResponse> answers;

		private @Nullable ClientResponse delivered;

		private boolean ended;

		Call(ClientRequest request, boolean hedged) {
			this.request = request;
			this.hedged = hedged;
		}

		Mono<ClientResponse> attempt(ExchangeFunction next) {
			// The earlier attempts' error responses: their failures were retried, or another copy runs on.
			List<ClientResponse> previous = takeErrors();
			Mono<Void> released = previous.isEmpty() ? Mono.empty()
					: Flux.fromIterable(previous).concatMap((response) -> response.releaseBody().onErrorComplete()).then();
			BodyInserter<?, ? super ClientHttpRequest> body = this.request.body();
			ClientRequest checked = ClientRequest.from(this.request)
				.body((message, context) -> body.insert(new CheckedRequest(message), context))
				.build();
			return released.then(next.exchange(checked)).flatMap(this::judge);
		}

		/** An error response becomes the attempt's failure, as WebClient's retrieve() would throw it, body unread. */
		private Mono<ClientResponse> judge(ClientResponse response) {
			if (!response.statusCode().isError()) {
				return (!this.hedged || answered(response)) ? Mono.just(response) : Mono.empty();
			}
			WebClientResponseException failure = WebClientResponseException.create(response.statusCode(),
					statusText(response), response.headers().asHttpHeaders(), UNREAD,
					response.headers().contentType().map((type) -> type.getCharset()).orElse(null),
					response.request());
			synchronized (this) {
				if (this.ended) {
					// A copy that lost, answering after the call ended.
					discard(response);
					return Mono.empty();
				}
				Map<Throwable, ClientResponse> errors = this.errors;
				if (errors == null) {
					errors = new HashMap<>(2);
					this.errors = errors;
				}
				errors.put(failure, response);
			}
			return Mono.error(failure);
		}

		/** @return whether a hedged call's answer may be delivered: not when the call has ended */
		private synchronized boolean answered(ClientResponse response) {
			if (this.ended) {
				discard(response);
				return false;
			}
			List<ClientResponse> answers = this.answers;
			if (answers == null) {
				answers = new ArrayList<>(2);
				this.answers = answers;
			}
			answers.add(response);
			return true;
		}

		/** @return whether the failure is an error response's that this call still holds */
		synchronized boolean holds(Throwable failure) {
			return this.errors != null && this.errors.containsKey(failure);
		}

		/** @return the failure's error response, no longer this call's to release */
		synchronized @Nullable ClientResponse take(Throwable failure) {
			return (this.errors != null) ? this.errors.remove(failure) : null;
		}

		private synchronized List<ClientResponse> takeErrors() {
			Map<Throwable, ClientResponse> errors = this.errors;
			if (errors == null || errors.isEmpty()) {
				return List.of();
			}
			List<ClientResponse> taken = new ArrayList<>(errors.values());
			errors.clear();
			return taken;
		}

		synchronized void deliver(ClientResponse response) {
			this.delivered = response;
		}

		/** Releases what was neither retried nor handed to the client: error responses, and the losers' answers. */
		void release() {
			List<ClientResponse> unwanted;
			synchronized (this) {
				this.ended = true;
				unwanted = takeErrors();
				List<ClientResponse> answers = this.answers;
				if (answers != null) {
					unwanted = new ArrayList<>(unwanted);
					for (ClientResponse answer : answers) {
						if (answer != this.delivered) {
							unwanted.add(answer);
						}
					}
					answers.clear();
				}
			}
			unwanted.forEach(Call::discard);
		}

		private static void discard(ClientResponse response) {
			response.releaseBody().onErrorComplete().subscribe();
		}

		private static String statusText(ClientResponse response) {
			return (response.statusCode() instanceof org.springframework.http.HttpStatus status)
					? status.getReasonPhrase() : "";
		}

		private RequestBodyNotRepeatableException notRepeatable(String what, @Nullable Throwable cause) {
			return new RequestBodyNotRepeatableException("The body of " + this.request.method() + " "
					+ this.request.url() + " could not be sent again for a retry: " + what + ". Give WebClient a "
					+ "body it can write again whole with its length known (bodyValue, or a publisher that replays "
					+ "and a Content-Length header), or do not retry this request.", cause);
		}

		/** Checks one attempt's body, as it is written, against what the earlier attempts wrote. */
		private final class CheckedRequest extends ClientHttpRequestDecorator {

			/** What earlier attempts wrote: -1 for the first attempt, which has nothing to match. */
			private final long before = Call.this.written;

			private final long checksumBefore = Call.this.checksum;

			private final boolean wholeBefore = Call.this.whole;

			private final CRC32 crc = new CRC32();

			private long count;

			/** This attempt's Content-Length, -1 if it has none or is no retry of a body begun. */
			private long length = -1;

			/** The buffer that reached the Content-Length: sent only once the body ends there. */
			private final AtomicReference<@Nullable DataBuffer> last = new AtomicReference<>();

			CheckedRequest(ClientHttpRequest delegate) {
				super(delegate);
			}

			@Override
			public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
				if (this.before > 0) {
					this.length = getHeaders().getContentLength();
					RequestBodyNotRepeatableException failure = lengthFailure();
					if (failure != null) {
						// An error from the body: the connector aborts the request, never ends it.
						return super.writeWith(Flux.error(failure));
					}
				}
				Flux<DataBuffer> checked = Flux.<DataBuffer>from(body)
					.onErrorMap((ex) -> this.before > 0 && this.count == 0, (ex) -> notRepeatable("an earlier "
							+ "attempt wrote " + this.before + " bytes, this one failed before writing any", ex))
					.<DataBuffer>handle((buffer, sink) -> {
						RequestBodyNotRepeatableException different = add(buffer);
						if (different != null) {
							DataBufferUtils.release(buffer);
							sink.error(different);
						}
						else if (this.length < 0 || this.count < this.length) {
							sink.next(buffer);
						}
						// The bytes that reach the Content-Length wait for the body's end: with them the
						// server would take the request as complete, whatever follows.
						else if (!this.last.compareAndSet(null, buffer)) {
							DataBufferUtils.release(buffer);
						}
					})
					.concatWith(Mono.defer(this::end))
					.doFinally((signal) -> release(this.last.getAndSet(null)));
				return super.writeWith(checked);
			}

			/** A retry of a body begun must know the length it is to end at. */
			private @Nullable RequestBodyNotRepeatableException lengthFailure() {
				if (this.wholeBefore) {
					return (this.length < 0 || this.length == this.before) ? null : notRepeatable("an earlier "
							+ "attempt wrote it whole, " + this.before + " bytes, and this one's Content-Length is "
							+ this.length, null);
				}
				if (this.length < 0) {
					return notRepeatable("an earlier attempt wrote " + this.before + " bytes of it and this one has no "
							+ "Content-Length to show it whole", null);
				}
				return (this.length >= this.before) ? null : notRepeatable("an earlier attempt wrote "
						+ this.before + " bytes of it, more than this one's Content-Length, " + this.length, null);
			}

			@Override
			public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
				return writeWith(Flux.from(body).concatMap(Flux::from));
			}

			@Override
			public Mono<Void> setComplete() {
				return end().then(super.setComplete());
			}

			/** Checksums a buffer's bytes; checks them against the earlier attempts' when they reach as far. */
			private @Nullable RequestBodyNotRepeatableException add(DataBuffer buffer) {
				try (DataBuffer.ByteBufferIterator buffers = buffer.readableByteBuffers()) {
					while (buffers.hasNext()) {
						ByteBuffer bytes = buffers.next();
						int length = bytes.remaining();
						// The bytes up to where the earlier attempts stopped, when this buffer reaches there.
						long toBefore = this.before - this.count;
						int checked = (toBefore > 0 && toBefore <= length) ? (int) toBefore : 0;
						if (checked > 0) {
							ByteBuffer head = bytes.duplicate();
							head.limit(head.position() + checked);
							this.crc.update(head);
							if (this.crc.getValue() != this.checksumBefore) {
								return notRepeatable("its first " + this.before + " bytes differ from those an "
										+ "earlier attempt wrote", null);
							}
						}
						ByteBuffer rest = bytes.duplicate();
						rest.position(rest.position() + checked);
						this.crc.update(rest);
						this.count += length;
					}
				}
				if (this.wholeBefore && this.count > this.before) {
					return notRepeatable("an earlier attempt wrote it whole, " + this.before + " bytes, this one more",
							null);
				}
				if (this.length >= 0 && this.count > this.length) {
					return notRepeatable("this one's Content-Length is " + this.length + " but it has more bytes", null);
				}
				if (this.count > Call.this.written) {
					record(false);
				}
				return null;
			}

			/**
			 * The body is complete: it must be as long as the earlier attempts' and its Content-Length.
			 * @return the buffer that reached the Content-Length, held back until now
			 */
			private Mono<DataBuffer> end() {
				if (this.count < this.before) {
					return Mono.error(notRepeatable("an earlier attempt wrote " + this.before + " bytes, this one "
							+ ((this.count != 0) ? this.count : "none"), null));
				}
				if (this.length >= 0 && this.count != this.length) {
					return Mono.error(notRepeatable("this one's Content-Length is " + this.length
							+ " but it ended after " + this.count + " bytes", null));
				}
				record(true);
				return Mono.justOrEmpty(this.last.getAndSet(null));
			}

			private static void release(@Nullable DataBuffer buffer) {
				if (buffer != null) {
					DataBufferUtils.release(buffer);
				}
			}

			private void record(boolean whole) {
				Call.this.checksum = this.crc.getValue();
				Call.this.written = this.count;
				Call.this.whole = whole;
			}

		}

	}

}
