package dev.backoff.benchmarks.overhead;

import dev.backoff.Backoff;

/** The bean advised by {@code @Backoff}: 3 attempts, the default jitter and delays (the sleeper is a no-op). */
public class BackoffService {

	private final Flaky flaky = new Flaky();

	@Backoff(maxAttempts = "3")
	public String ok() {
		return this.flaky.ok();
	}

	@Backoff(maxAttempts = "3")
	public String flaky() {
		return this.flaky.flaky();
	}

}
