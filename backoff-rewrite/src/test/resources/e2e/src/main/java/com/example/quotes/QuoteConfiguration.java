package com.example.quotes;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.retry.annotation.EnableRetry;

@Configuration(proxyBeanMethods = false)
@EnableRetry
public class QuoteConfiguration {

	@Bean
	QuoteClient quoteClient() {
		return new QuoteClient();
	}

	@Bean
	QuoteSettings quoteSettings() {
		return new QuoteSettings();
	}

	@Bean
	QuoteService quoteService(QuoteClient client) {
		return new QuoteService(client);
	}

	@Bean
	PriceService priceService(QuoteClient client) {
		return new PriceService(client);
	}

	@Bean
	HistoryService historyService(QuoteClient client) {
		return new HistoryService(client);
	}

	@Bean
	NewsFeed newsFeed(QuoteClient client) {
		return new RemoteNewsFeed(client);
	}

}
