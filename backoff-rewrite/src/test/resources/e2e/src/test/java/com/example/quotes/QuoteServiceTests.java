package com.example.quotes;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.junit.jupiter.SpringJUnitConfig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

@SpringJUnitConfig(QuoteConfiguration.class)
class QuoteServiceTests {

	@Autowired
	QuoteClient client;

	@Autowired
	QuoteService quotes;

	@Autowired
	PriceService prices;

	@Autowired
	HistoryService history;

	@Autowired
	NewsFeed news;

	@Test
	void retriesUntilTheClientAnswers() throws Exception {
		this.client.failFirst(2);
		assertEquals("quote for ACME", this.quotes.quote("ACME"));
		assertEquals(3, this.client.calls());
	}

	@Test
	void recoversAfterThreeAttempts() throws Exception {
		this.client.failFirst(10);
		assertEquals("cached quote for ACME", this.quotes.quote("ACME"));
		assertEquals(3, this.client.calls());
	}

	@Test
	void attemptsFromABeanAndRecoveryByFailureType() throws Exception {
		this.client.failFirst(10);
		assertEquals("stale price for ACME", this.prices.price("ACME"));
		assertEquals(4, this.client.calls());
		this.client.failFirst(10, new IllegalStateException("down"));
		assertEquals("no price for ACME", this.prices.price("ACME"));
		assertEquals(4, this.client.calls());
	}

	@Test
	void checkedFailureReachesTheCaller() {
		this.client.failFirst(10);
		assertThrows(QuoteUnavailableException.class, () -> this.history.history("ACME"));
		assertEquals(2, this.client.calls());
	}

	@Test
	void interfaceDeclarationsCoverTheImplementation() {
		this.client.failFirst(3);
		assertEquals("news: quote for ACME", this.news.headline("ACME"));
		assertEquals(4, this.client.calls());
		this.client.failFirst(10);
		assertEquals("no news for ACME", this.news.headline("ACME"));
		assertEquals(4, this.client.calls());
	}

}
