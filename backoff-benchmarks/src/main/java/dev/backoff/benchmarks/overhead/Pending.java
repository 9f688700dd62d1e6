package dev.backoff.benchmarks.overhead;

import java.util.concurrent.CompletableFuture;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The attempt of a {@code later} benchmark: a method returns a result that is not complete yet
 * and keeps it here, and the benchmark completes it once the call has started (and, for a
 * {@code Mono}, has been subscribed), on the benchmark's own thread. No sleep and no other
 * thread, so each call's attempt is pending for the same short, deterministic time: long
 * enough that a timer is needed, never long enough for it to fire. One benchmark thread per
 * bean (JMH's default), as the states are shared.
 */
public final class Pending {

	private CompletableFuture<String> future;

	private Sinks.One<String> sink;

	/** @return a new future, completed by {@link #complete()} */
	public CompletableFuture<String> future() {
		CompletableFuture<String> future = new CompletableFuture<>();
		this.future = future;
		return future;
	}

	/** @return a new {@code Mono}, completed by {@link #complete()} */
	public Mono<String> mono() {
		Sinks.One<String> sink = Sinks.one();
		this.sink = sink;
		return sink.asMono();
	}

	/**
	 * Completes the last future or {@code Mono} handed out with {@value Flaky#RESULT}.
	 * @throws IllegalStateException if none is pending: the call did not start its attempt
	 */
	public void complete() {
		if (this.future == null && this.sink == null) {
			throw new IllegalStateException("No attempt is pending");
		}
		if (this.future != null) {
			CompletableFuture<String> future = this.future;
			this.future = null;
			future.complete(Flaky.RESULT);
		}
		if (this.sink != null) {
			Sinks.One<String> sink = this.sink;
			this.sink = null;
			sink.tryEmitValue(Flaky.RESULT).orThrow();
		}
	}

}
