package dev.backoff.autoconfigure.web;

import java.io.ByteArrayInputStream;
import java.io.InputStream;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

/**
 * An error response read whole, so that it can be judged and, when it ends the call, handed
 * to the client as it came: the connection is released as soon as it is read.
 */
record BufferedResponse(HttpStatusCode status, String statusText, HttpHeaders headers,
		byte[] content) implements ClientHttpResponse {

	@Override
	public HttpStatusCode getStatusCode() {
		return this.status;
	}

	@Override
	public String getStatusText() {
		return this.statusText;
	}

	@Override
	public HttpHeaders getHeaders() {
		return this.headers;
	}

	@Override
	public InputStream getBody() {
		return new ByteArrayInputStream(this.content);
	}

	@Override
	public void close() {
	}

}
