package dev.backoff.benchmarks.overhead;

import java.util.concurrent.CompletableFuture;

/**
 * The non-blocking bean without any annotation: called directly (the floor) and decorated by
 * Resilience4j's {@code Retry} and {@code TimeLimiter}.
 */
public class AsyncPlainService {

	private final Flaky flaky = new Flaky();

	private final Pending pending;

	/** @param pending where the {@code later} methods keep their attempt */
	public AsyncPlainService(Pending pending) {
		this.pending = pending;
	}

	public CompletableFuture<String> futureAtOnce() {
		return CompletableFuture.completedFuture(this.flaky.ok());
	}

	public CompletableFuture<String> futureLater() {
		return this.pending.future();
	}

}
