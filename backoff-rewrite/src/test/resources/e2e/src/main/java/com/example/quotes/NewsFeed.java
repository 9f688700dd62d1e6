package com.example.quotes;

import org.springframework.retry.annotation.Backoff;
import org.springframework.retry.annotation.Recover;
import org.springframework.retry.annotation.Retryable;

/** Declared on the interface, for every implementation. */
public interface NewsFeed {

	@Retryable(maxAttempts = 4, backoff = @Backoff(delay = 5))
	String headline(String symbol);

	@Recover
	String noHeadline(RuntimeException failure, String symbol);

}
