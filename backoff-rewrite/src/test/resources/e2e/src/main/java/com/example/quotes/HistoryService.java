package com.example.quotes;

import org.springframework.retry.annotation.Backoff;
import org.springframework.retry.annotation.Retryable;

/** History: no recovery, so the caller gets the checked failure once the attempts are spent. */
public class HistoryService {

	private final QuoteClient client;

	public HistoryService(QuoteClient client) {
		this.client = client;
	}

	@Retryable(maxAttempts = 2, backoff = @Backoff(delay = 5))
	public String history(String symbol) throws QuoteUnavailableException {
		return this.client.fetch(symbol);
	}

}
