package dev.backoff.sample.guarded;

import dev.backoff.AttemptNotSentException;
import dev.backoff.sample.quotes.DownstreamBaseUrl;
import dev.backoff.sample.quotes.Quote;
import dev.backoff.spring.http.BackoffHttp;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;
import org.springframework.web.client.RestClientResponseException;

/**
 * Scenario 1d: {@code GET /guarded/quotes/{symbol}} reads the quote through a {@code RestClient}
 * under the {@code guarded} policy, which retries as the others do and also spares the downstream
 * when it is overloaded. While most of the policy's requests fail, admission rejects requests
 * here, unsent: the caller gets 503 at once, as this service cannot answer without the downstream
 * either. After the downstream's first 429, pacing makes every request of the policy wait for
 * its slot at the rate the downstream allows, instead of being refused there. Any other failure
 * left when the policy gives up is answered 502.
 */
@RestController
public class GuardedQuotes {

	private final RestClient client;

	private final DownstreamBaseUrl baseUrl;

	public GuardedQuotes(RestClient.Builder builder, BackoffHttp http, DownstreamBaseUrl baseUrl) {
		this.client = http.builder(builder, "guarded").build();
		this.baseUrl = baseUrl;
	}

	@GetMapping("/guarded/quotes/{symbol}")
	public Quote quote(@PathVariable String symbol) {
		return this.client.get()
			.uri(this.baseUrl.get() + "/downstream/quotes/{symbol}", symbol)
			.retrieve()
			.body(Quote.class);
	}

	@ExceptionHandler(AttemptNotSentException.class)
	@ResponseStatus(HttpStatus.SERVICE_UNAVAILABLE)
	ProblemDetail rejected(AttemptNotSentException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
				"Not sent to the overloaded downstream: " + ex.getMessage());
	}

	@ExceptionHandler(RestClientException.class)
	@ResponseStatus(HttpStatus.BAD_GATEWAY)
	ProblemDetail badGateway(RestClientException ex) {
		String cause = (ex instanceof RestClientResponseException response)
				? "answered " + response.getStatusCode().value() : "failed: " + ex.getMessage();
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_GATEWAY, "The downstream quote service " + cause);
	}

}
