package com.example.quotes;

import org.springframework.retry.annotation.Backoff;
import org.springframework.retry.annotation.Recover;
import org.springframework.retry.annotation.Retryable;

/** Prices: attempts from a bean, the wait from a property, a recovery per failure type. */
public class PriceService {

	private final QuoteClient client;

	public PriceService(QuoteClient client) {
		this.client = client;
	}

	@Retryable(recover = "noPrice", maxAttemptsExpression = "#{@quoteSettings.attempts}",
			backoff = @Backoff(delayExpression = "${quotes.delay:5}"))
	public String price(String symbol) throws QuoteUnavailableException {
		return this.client.fetch(symbol);
	}

	@Recover
	public String noPrice(QuoteUnavailableException failure, String symbol) {
		return "stale price for " + symbol;
	}

	@Recover
	public String noPrice(IllegalStateException failure, String symbol) {
		return "no price for " + symbol;
	}

}
