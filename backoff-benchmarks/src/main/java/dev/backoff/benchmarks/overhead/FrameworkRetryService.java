package dev.backoff.benchmarks.overhead;

import org.springframework.resilience.annotation.Retryable;

/**
 * The bean advised by Spring Framework 7's {@code @Retryable}: 2 retries (3 attempts), delay 0.
 * Framework 7 has no sleeper to replace: with delay 0 its {@code RetryTemplate} still calls
 * {@code Thread.sleep(0)} between attempts.
 */
public class FrameworkRetryService {

	private final Flaky flaky = new Flaky();

	@Retryable(maxRetries = 2, delay = 0)
	public String ok() {
		return this.flaky.ok();
	}

	@Retryable(maxRetries = 2, delay = 0)
	public String flaky() {
		return this.flaky.flaky();
	}

}
