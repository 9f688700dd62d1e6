package dev.backoff.sample.quotes;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import dev.backoff.Backoff;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.stereotype.Component;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;

/**
 * Reads a quote without holding a thread while the downstream answers (the JDK's
 * {@code HttpClient.sendAsync}), hedged under the {@code reads} policy: when no answer came
 * within its {@code hedge-delay}, a second request is sent, the first answer wins, and the other
 * request's future is cancelled. Error answers become Spring's {@code RestClientResponseException}
 * types, so the starter's HTTP classification decides them as it does {@link QuoteClient}'s.
 */
@Component
public class QuoteReads {

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(1))
		.build();

	private final DownstreamBaseUrl baseUrl;

	private final JsonMapper json;

	public QuoteReads(DownstreamBaseUrl baseUrl, JsonMapper json) {
		this.baseUrl = baseUrl;
		this.json = json;
	}

	/**
	 * @param symbol the ticker symbol
	 * @return the quote; or, failed with the last answer's {@code RestClientResponseException}
	 */
	@Backoff("reads")
	public CompletableFuture<Quote> fetch(String symbol) {
		HttpRequest request = HttpRequest.newBuilder(URI.create(this.baseUrl.get() + "/downstream/quotes/" + symbol))
			.timeout(Duration.ofSeconds(5))
			.build();
		return this.http.sendAsync(request, BodyHandlers.ofString()).thenApply(this::quote);
	}

	private Quote quote(HttpResponse<String> response) {
		HttpStatusCode status = HttpStatusCode.valueOf(response.statusCode());
		if (status.isError()) {
			HttpHeaders headers = new HttpHeaders();
			response.headers().map().forEach(headers::addAll);
			byte[] body = response.body().getBytes(StandardCharsets.UTF_8);
			throw status.is4xxClientError()
					? HttpClientErrorException.create(status, "", headers, body, StandardCharsets.UTF_8)
					: HttpServerErrorException.create(status, "", headers, body, StandardCharsets.UTF_8);
		}
		return this.json.readValue(response.body(), Quote.class);
	}

}
