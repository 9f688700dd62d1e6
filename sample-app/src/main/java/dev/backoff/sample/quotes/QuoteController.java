package dev.backoff.sample.quotes;

import java.util.concurrent.CompletableFuture;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClientException;
import org.springframework.web.client.RestClientResponseException;
import org.springframework.web.util.DefaultUriBuilderFactory;

/**
 * {@code GET /quotes/{symbol}}: a quote from the downstream service, fetched with retries by
 * a {@code @Backoff} method; {@code GET /http/quotes/{symbol}}: the same through an HTTP
 * interface client whose {@code RestClient} retries each request.
 * A 404 from the downstream (not retried) is answered 404; any other failure that is left
 * after the policy gave up (or that it does not retry) is answered 502 Bad Gateway, with the
 * downstream's last status.
 */
@RestController
public class QuoteController {

	private final QuoteClient client;

	private final QuoteService service;

	private final DownstreamBaseUrl baseUrl;

	private final QuoteReads reads;

	public QuoteController(QuoteClient client, QuoteService service, DownstreamBaseUrl baseUrl, QuoteReads reads) {
		this.client = client;
		this.service = service;
		this.baseUrl = baseUrl;
		this.reads = reads;
	}

	/**
	 * The same quote read without holding a thread, hedged: {@link QuoteReads}, policy {@code reads}.
	 * @param symbol the ticker symbol
	 * @return the quote, when the first copy answers
	 */
	@GetMapping("/quotes/{symbol}/hedged")
	public CompletableFuture<Quote> hedgedQuote(@PathVariable String symbol) {
		return this.reads.fetch(symbol);
	}

	@GetMapping("/quotes/{symbol}")
	public Quote quote(@PathVariable String symbol) {
		return this.client.fetch(symbol);
	}

	/**
	 * The same quote through {@link QuoteService}, an {@code @HttpExchange} client whose
	 * {@code RestClient} retries by itself.
	 * @param symbol the ticker symbol
	 * @return the quote
	 */
	@GetMapping("/http/quotes/{symbol}")
	public Quote quoteOverRetryingClient(@PathVariable String symbol) {
		return this.service.quote(new DefaultUriBuilderFactory(this.baseUrl.get()), symbol);
	}

	@ExceptionHandler(HttpClientErrorException.NotFound.class)
	@ResponseStatus(HttpStatus.NOT_FOUND)
	ProblemDetail notFound() {
		return ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, "The downstream service has no such quote");
	}

	@ExceptionHandler(RestClientException.class)
	@ResponseStatus(HttpStatus.BAD_GATEWAY)
	ProblemDetail badGateway(RestClientException ex) {
		String cause = (ex instanceof RestClientResponseException response)
				? "answered " + response.getStatusCode().value() : "failed: " + ex.getMessage();
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_GATEWAY,
				"The downstream service " + cause);
		if (ex instanceof RestClientResponseException response) {
			problem.setProperty("downstreamStatus", response.getStatusCode().value());
		}
		return problem;
	}

}
