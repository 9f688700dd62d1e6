package com.example.quotes;

/** Unannotated: its retries come from {@link NewsFeed}. */
public class RemoteNewsFeed implements NewsFeed {

	private final QuoteClient client;

	public RemoteNewsFeed(QuoteClient client) {
		this.client = client;
	}

	@Override
	public String headline(String symbol) {
		try {
			return "news: " + this.client.fetch(symbol);
		}
		catch (QuoteUnavailableException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public String noHeadline(RuntimeException failure, String symbol) {
		return "no news for " + symbol;
	}

}
