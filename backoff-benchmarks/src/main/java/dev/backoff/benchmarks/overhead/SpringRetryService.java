package dev.backoff.benchmarks.overhead;

import org.springframework.retry.annotation.Backoff;
import org.springframework.retry.annotation.Retryable;

/**
 * The bean advised by Spring Retry's {@code @Retryable}: 3 attempts, a fixed 1 ms back-off that
 * the context's no-op {@code Sleeper} bean makes free.
 */
public class SpringRetryService {

	private final Flaky flaky = new Flaky();

	@Retryable(maxAttempts = 3, backoff = @Backoff(delay = 1))
	public String ok() {
		return this.flaky.ok();
	}

	@Retryable(maxAttempts = 3, backoff = @Backoff(delay = 1))
	public String flaky() {
		return this.flaky.flaky();
	}

}
