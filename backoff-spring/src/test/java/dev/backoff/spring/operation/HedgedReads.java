package dev.backoff.spring.operation;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.backoff.Backoff;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Hedged reads whose answers a test gives by hand: each copy of {@link #future()} is a future,
 * each subscription of {@link #mono()} a sink, kept in the order the copies were sent. Policy
 * {@code reads}, a copy after 50 ms, one hedge at most.
 */
public class HedgedReads {

	// Read through methods: the test holds the proxy, whose own fields are unset.
	private final List<CompletableFuture<String>> futures = new CopyOnWriteArrayList<>();

	private final List<Sinks.One<String>> sinks = new CopyOnWriteArrayList<>();

	public List<CompletableFuture<String>> futures() {
		return this.futures;
	}

	public List<Sinks.One<String>> sinks() {
		return this.sinks;
	}

	@Backoff(value = "reads", hedgeDelay = "50ms", maxHedges = "1")
	public CompletableFuture<String> future() {
		CompletableFuture<String> future = new CompletableFuture<>();
		this.futures.add(future);
		return future;
	}

	@Backoff(value = "reads", hedgeDelay = "50ms", maxHedges = "1")
	public Mono<String> mono() {
		return Mono.defer(() -> {
			Sinks.One<String> sink = Sinks.one();
			this.sinks.add(sink);
			return sink.asMono();
		});
	}

}
