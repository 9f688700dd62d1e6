package dev.backoff.benchmarks.overhead;

/**
 * The benchmarked method's body, the same for every library: {@link #ok()} always succeeds;
 * {@link #flaky()} fails on every other call (first, third, …), so each retried call is exactly
 * one failure then one success. The failure is a <em>fresh</em> {@link IllegalStateException}
 * with its stack trace, as a real failure would be, for every library alike.
 */
public final class Flaky {

	/** What both methods return on success. */
	public static final String RESULT = "ok";

	private int calls;

	/** @return {@value #RESULT} */
	public String ok() {
		return RESULT;
	}

	/** @return {@value #RESULT} on even calls; throws on odd ones */
	public String flaky() {
		if ((this.calls++ & 1) == 0) {
			throw new IllegalStateException("transient");
		}
		return RESULT;
	}

}
