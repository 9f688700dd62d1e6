package dev.backoff;

import java.time.Duration;

/** Policies shared by the executor tests. */
final class TestPolicies {

	private TestPolicies() {
	}

	/** Base 100ms, doubling, no jitter: waits of 100, 200, 400, … ms. */
	static BackoffPolicy doublingFrom100ms(int maxAttempts) {
		return BackoffPolicy.builder()
			.baseDelay(Duration.ofMillis(100))
			.maxDelay(Duration.ofSeconds(10))
			.jitter(Jitter.NONE)
			.maxAttempts(maxAttempts)
			.build();
	}

}
