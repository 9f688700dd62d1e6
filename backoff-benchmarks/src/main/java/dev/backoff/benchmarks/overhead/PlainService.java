package dev.backoff.benchmarks.overhead;

/** The bean without any annotation: called directly, through the hand-written interceptors, and by Failsafe. */
public class PlainService {

	private final Flaky flaky = new Flaky();

	public String ok() {
		return this.flaky.ok();
	}

	public String flaky() {
		return this.flaky.flaky();
	}

}
