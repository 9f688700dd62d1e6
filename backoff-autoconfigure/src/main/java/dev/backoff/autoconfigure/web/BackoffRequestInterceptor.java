package dev.backoff.autoconfigure.web;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;

import dev.backoff.autoconfigure.BackoffOperation;
import dev.backoff.internal.Exceptions;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.util.StreamUtils;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClientResponseException;
import org.springframework.web.client.UnknownHttpStatusCodeException;

/**
 * {@link BackoffHttp#interceptor}: each request one call of the policy. Every attempt calls
 * {@code execution.execute} again, which since Spring Framework 7 (issue 34169) runs the
 * interceptors after this one anew; the body is the byte array Spring buffered, the same
 * for every attempt.
 */
final class BackoffRequestInterceptor implements ClientHttpRequestInterceptor {

	private static final @Nullable Object[] NO_ARGUMENTS = {};

	private final ClientOperations operations;

	BackoffRequestInterceptor(ClientOperations operations) {
		this.operations = operations;
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
			return (ClientHttpResponse) operation.invoke(() -> attempt(request, body, execution, last), null, null,
					NO_ARGUMENTS);
		}
		catch (Throwable ex) {
			if (ex == last.failure) {
				// The call ended on an error response: the client gets it, to handle as without retries.
				return last.response;
			}
			throw Exceptions.<IOException>rethrow(ex);
		}
	}

	private static ClientHttpResponse attempt(HttpRequest request, byte[] body, ClientHttpRequestExecution execution,
			LastFailure last) throws IOException {
		ClientHttpResponse response = execution.execute(request, body);
		HttpStatusCode status = response.getStatusCode();
		if (!status.isError()) {
			return response;
		}
		BufferedResponse buffered;
		try (response) {
			byte[] content;
			try (InputStream in = response.getBody()) {
				content = StreamUtils.copyToByteArray(in);
			}
			buffered = new BufferedResponse(status, response.getStatusText(), HttpHeaders.copyOf(response.getHeaders()),
					content);
		}
		RestClientResponseException failure = failure(buffered);
		last.failure = failure;
		last.response = buffered;
		throw failure;
	}

	/** The exception RestClient's default status handler would throw for the response. */
	private static RestClientResponseException failure(BufferedResponse response) {
		HttpStatusCode status = response.status();
		HttpHeaders headers = response.getHeaders();
		MediaType type = headers.getContentType();
		Charset charset = (type != null) ? type.getCharset() : null;
		byte[] content = response.content();
		if (status.is4xxClientError()) {
			return HttpClientErrorException.create(status, response.statusText(), headers, content, charset);
		}
		if (status.is5xxServerError()) {
			return HttpServerErrorException.create(status, response.statusText(), headers, content, charset);
		}
		return new UnknownHttpStatusCodeException(status.value(), response.statusText(), headers, content, charset);
	}

	/** The failure of the last attempt that got an error response, and that response. */
	private static final class LastFailure {

		private @Nullable Throwable failure;

		private @Nullable ClientHttpResponse response;

	}

}
