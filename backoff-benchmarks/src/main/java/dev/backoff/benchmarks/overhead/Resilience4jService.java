package dev.backoff.benchmarks.overhead;

import io.github.resilience4j.retry.annotation.Retry;

/** The bean advised by Resilience4j's {@code @Retry} aspect: instance {@value #NAME}, 3 attempts, zero interval. */
public class Resilience4jService {

	/** The Resilience4j retry instance. */
	public static final String NAME = "bench";

	private final Flaky flaky = new Flaky();

	@Retry(name = NAME)
	public String ok() {
		return this.flaky.ok();
	}

	@Retry(name = NAME)
	public String flaky() {
		return this.flaky.flaky();
	}

}
