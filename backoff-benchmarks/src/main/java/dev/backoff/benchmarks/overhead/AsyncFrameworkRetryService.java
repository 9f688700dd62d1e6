package dev.backoff.benchmarks.overhead;

import reactor.core.publisher.Mono;

import org.springframework.resilience.annotation.Retryable;

/**
 * The {@code Mono} bean advised by Spring Framework 7's reactive {@code @Retryable}: 2 retries
 * (3 attempts), delay 0. Framework's {@code timeout} attribute bounds the whole retried
 * publisher ({@code timeout} after {@code retryWhen}), not an attempt; a Framework user bounds
 * each attempt with {@code Mono.timeout} inside the method, which {@code @Retryable}
 * resubscribes with each attempt: the {@code Timed} methods, {@value Contexts#ATTEMPT_TIMEOUT}
 * on Reactor's parallel scheduler (its default), which never fires.
 */
public class AsyncFrameworkRetryService {

	private final Flaky flaky = new Flaky();

	private final Pending pending;

	/** @param pending where the {@code later} methods keep their attempt */
	public AsyncFrameworkRetryService(Pending pending) {
		this.pending = pending;
	}

	@Retryable(maxRetries = 2, delay = 0)
	public Mono<String> monoAtOnce() {
		return Mono.just(this.flaky.ok());
	}

	@Retryable(maxRetries = 2, delay = 0)
	public Mono<String> monoAtOnceTimed() {
		return Mono.just(this.flaky.ok()).timeout(Contexts.ATTEMPT_TIMEOUT_DURATION);
	}

	@Retryable(maxRetries = 2, delay = 0)
	public Mono<String> monoLater() {
		return this.pending.mono();
	}

	@Retryable(maxRetries = 2, delay = 0)
	public Mono<String> monoLaterTimed() {
		return this.pending.mono().timeout(Contexts.ATTEMPT_TIMEOUT_DURATION);
	}

}
