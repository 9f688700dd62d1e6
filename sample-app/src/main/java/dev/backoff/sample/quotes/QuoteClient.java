package dev.backoff.sample.quotes;

import dev.backoff.Backoff;

import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

/**
 * Calls the downstream quote service over HTTP. Retried under the {@code downstream} policy:
 * 5xx answers, 429 and I/O errors are retried with full jitter; any other 4xx (a 404 for an
 * unknown symbol, say) fails at once, since asking again cannot change the answer.
 */
@Component
public class QuoteClient {

	private final RestClient restClient;

	private final DownstreamBaseUrl baseUrl;

	public QuoteClient(RestClient.Builder restClientBuilder, DownstreamBaseUrl baseUrl) {
		this.restClient = restClientBuilder.build();
		this.baseUrl = baseUrl;
	}

	/**
	 * @param symbol the ticker symbol
	 * @return the quote
	 * @throws org.springframework.web.client.RestClientResponseException the last answer, when it
	 * was an error: an {@code HttpClientErrorException.NotFound} at once, or after the last attempt
	 * an {@code HttpServerErrorException} or {@code HttpClientErrorException.TooManyRequests}
	 * @throws org.springframework.web.client.RestClientException on an I/O error at the last attempt
	 */
	@Backoff("downstream")
	public Quote fetch(String symbol) {
		Quote quote = this.restClient.get()
			.uri(this.baseUrl.get() + "/downstream/quotes/{symbol}", symbol)
			.retrieve()
			.body(Quote.class);
		if (quote == null) {
			throw new IllegalStateException("The downstream answered " + symbol + " with an empty body");
		}
		return quote;
	}

}
