package com.example.quotes;

import org.springframework.retry.annotation.Backoff;
import org.springframework.retry.annotation.Recover;
import org.springframework.retry.annotation.Retryable;

/** Quotes: retried on the service's own failure, a cached quote once the attempts are spent. */
public class QuoteService {

	private final QuoteClient client;

	public QuoteService(QuoteClient client) {
		this.client = client;
	}

	@Retryable(retryFor = QuoteUnavailableException.class, backoff = @Backoff(delay = 5, multiplier = 2))
	public String quote(String symbol) throws QuoteUnavailableException {
		return this.client.fetch(symbol);
	}

	@Recover
	public String cachedQuote(QuoteUnavailableException failure, String symbol) {
		return "cached quote for " + symbol;
	}

}
