package dev.backoff.benchmarks.overhead;

import io.micrometer.observation.annotation.Observed;

/** A no-op {@code @Observed} method: Micrometer's own cost of observing a call, to set ours beside. */
public class ObservedService {

	private final Flaky flaky = new Flaky();

	@Observed(name = "benchmark.observed")
	public String ok() {
		return this.flaky.ok();
	}

}
