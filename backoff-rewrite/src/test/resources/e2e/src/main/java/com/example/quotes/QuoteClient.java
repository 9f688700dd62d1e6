package com.example.quotes;

import java.util.concurrent.atomic.AtomicInteger;

/** The remote quote service, scripted by the tests: it fails the first calls, then answers. */
public class QuoteClient {

	private final AtomicInteger calls = new AtomicInteger();

	private volatile int failures;

	private volatile RuntimeException unchecked;

	/** Fails the next {@code failures} calls with a {@link QuoteUnavailableException}. */
	public void failFirst(int failures) {
		failFirst(failures, null);
	}

	/** Fails the next {@code failures} calls with {@code unchecked}, when given. */
	public void failFirst(int failures, RuntimeException unchecked) {
		this.failures = failures;
		this.unchecked = unchecked;
		this.calls.set(0);
	}

	public int calls() {
		return this.calls.get();
	}

	public String fetch(String symbol) throws QuoteUnavailableException {
		if (this.calls.incrementAndGet() <= this.failures) {
			if (this.unchecked != null) {
				throw this.unchecked;
			}
			throw new QuoteUnavailableException(symbol);
		}
		return "quote for " + symbol;
	}

}
