package dev.backoff.benchmarks.overhead;

import java.util.concurrent.CompletableFuture;

import dev.backoff.Backoff;
import reactor.core.publisher.Mono;

/**
 * The non-blocking bean advised by {@code @Backoff}: 3 attempts, each method with and without
 * an attempt timeout of {@value Contexts#ATTEMPT_TIMEOUT}, which never fires. {@code atOnce}
 * methods return a result that is already complete; {@code later} ones one that the benchmark
 * completes after the call has started ({@link Pending}).
 */
public class AsyncBackoffService {

	private final Flaky flaky = new Flaky();

	private final Pending pending;

	/** @param pending where the {@code later} methods keep their attempt */
	public AsyncBackoffService(Pending pending) {
		this.pending = pending;
	}

	@Backoff(maxAttempts = "3")
	public CompletableFuture<String> futureAtOnce() {
		return CompletableFuture.completedFuture(this.flaky.ok());
	}

	@Backoff(maxAttempts = "3", attemptTimeout = Contexts.ATTEMPT_TIMEOUT)
	public CompletableFuture<String> futureAtOnceTimed() {
		return CompletableFuture.completedFuture(this.flaky.ok());
	}

	@Backoff(maxAttempts = "3")
	public CompletableFuture<String> futureLater() {
		return this.pending.future();
	}

	@Backoff(maxAttempts = "3", attemptTimeout = Contexts.ATTEMPT_TIMEOUT)
	public CompletableFuture<String> futureLaterTimed() {
		return this.pending.future();
	}

	@Backoff(maxAttempts = "3")
	public Mono<String> monoAtOnce() {
		return Mono.just(this.flaky.ok());
	}

	@Backoff(maxAttempts = "3", attemptTimeout = Contexts.ATTEMPT_TIMEOUT)
	public Mono<String> monoAtOnceTimed() {
		return Mono.just(this.flaky.ok());
	}

	@Backoff(maxAttempts = "3")
	public Mono<String> monoLater() {
		return this.pending.mono();
	}

	@Backoff(maxAttempts = "3", attemptTimeout = Contexts.ATTEMPT_TIMEOUT)
	public Mono<String> monoLaterTimed() {
		return this.pending.mono();
	}

}
