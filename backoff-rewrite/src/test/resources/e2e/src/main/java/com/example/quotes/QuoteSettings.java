package com.example.quotes;

/** Read by a bean expression in {@link PriceService}'s retry settings. */
public class QuoteSettings {

	public int getAttempts() {
		return 4;
	}

}
