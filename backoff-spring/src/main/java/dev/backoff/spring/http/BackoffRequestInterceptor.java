package dev.backoff.spring.http;

import java.io.IOException;
import java.nio.charset.Charset;

import dev.backoff.internal.Exceptions;
import dev.backoff.spring.operation.BackoffOperation;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.support.HttpRequestWrapper;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClientResponseException;
import org.springframework.web.client.UnknownHttpStatusCodeException;

/**
 * {@link BackoffHttp#interceptor}: each request one call of the policy. Every attempt calls
 * {@code execution.execute} again, which since Spring Framework 7 (issue 34169) runs the
 * interceptors after this one anew, on a fresh copy of the request (its headers copied), so
 * that what they add does not pile up; the body is the byte array Spring buffered, the same
 * for every attempt. An error response is judged by its status and headers, its body left
 * unread: the last one reaches the client as it came, and one that is retried is closed.
 */
final class BackoffRequestInterceptor implements ClientHttpRequestInterceptor {

	private static final @Nullable Object[] NO_ARGUMENTS = {};

	private static final byte[] UNREAD = {};

	private final ClientOperations operations;

	BackoffRequestInterceptor(ClientOperations operations) {
		this.operations = operations;
	}

	String getPolicy() {
		return this.operations.getPolicy();
	}

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		if (!this.operations.isRetryable(request.getMethod(), request.getHeaders())) {
			return execution.execute(request, body);
		}
		BackoffOperation operation = this.operations.get(request.getMethod());
		LastFailure last = new LastFailure();
		try {
			return (ClientHttpResponse) operation.invoke(() -> last.attempt(request, body, execution), null, null,
					NO_ARGUMENTS);
		}
		catch (Throwable ex) {
			ClientHttpResponse response = last.response;
			if (ex == last.failure && response != null) {
				// The call ended on an error response: the client gets it, to handle as without retries.
				return response;
			}
			last.close();
			throw Exceptions.<IOException>rethrow(ex);
		}
	}

	/** The exception RestClient's default status handler would throw for the response, without its body. */
	private static RestClientResponseException failure(ClientHttpResponse response, HttpStatusCode status)
			throws IOException {
		HttpHeaders headers = HttpHeaders.copyOf(response.getHeaders());
		MediaType type = headers.getContentType();
		Charset charset = (type != null) ? type.getCharset() : null;
		String statusText = response.getStatusText();
		if (status.is4xxClientError()) {
			return HttpClientErrorException.create(status, statusText, headers, UNREAD, charset);
		}
		if (status.is5xxServerError()) {
			return HttpServerErrorException.create(status, statusText, headers, UNREAD, charset);
		}
		return new UnknownHttpStatusCodeException(status.value(), statusText, headers, UNREAD, charset);
	}

	/** One call's attempts: the failure of the last one that got an error response, and that response. */
	private static final class LastFailure {

		private @Nullable Throwable failure;

		private @Nullable ClientHttpResponse response;

		ClientHttpResponse attempt(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
				throws IOException {
			close();
			HttpHeaders headers = HttpHeaders.copyOf(request.getHeaders());
			ClientHttpResponse response = execution.execute(new HttpRequestWrapper(request) {

				@Override
				public HttpHeaders getHeaders() {
					return headers;
				}

			}, body);
			HttpStatusCode status = response.getStatusCode();
			if (!status.isError()) {
				return response;
			}
			RestClientResponseException failure = failure(response, status);
			this.failure = failure;
			this.response = response;
			throw failure;
		}

		/** Releases the response of an attempt that is retried or not handed to the client. */
		void close() {
			ClientHttpResponse response = this.response;
			if (response != null) {
				this.response = null;
				this.failure = null;
				// The body stream first: a response's close() may read the rest (the JDK client's
				// does, to reuse the connection), which a body that never ends would not allow.
				try (response) {
					response.getBody().close();
				}
				catch (IOException ex) {
					// Released as far as it can be.
				}
			}
		}

	}

}
