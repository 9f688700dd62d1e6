package com.example.quotes;

/** A checked failure of the quote service, which its callers must see as it is. */
public class QuoteUnavailableException extends Exception {

	public QuoteUnavailableException(String symbol) {
		super("no quote for " + symbol);
	}

}
