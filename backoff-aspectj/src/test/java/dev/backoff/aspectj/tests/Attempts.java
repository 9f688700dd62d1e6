package dev.backoff.aspectj.tests;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the attempts of a test method and fails the first ones, as many as scripted.
 */
final class Attempts {

	private final AtomicInteger count = new AtomicInteger();

	private volatile int failures;

	/** Fails the next {@code failures} attempts, and counts from zero again. */
	void failNext(int failures) {
		this.failures = failures;
		this.count.set(0);
	}

	/** One attempt: throws while failures are scripted. */
	String attempt() {
		int attempt = this.count.incrementAndGet();
		if (attempt <= this.failures) {
			throw new IllegalStateException("attempt " + attempt + " failed");
		}
		return "ok after " + attempt;
	}

	int count() {
		return this.count.get();
	}

}
