package dev.backoff.sample.hedging;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/**
 * One variant's run: the calls' latencies and failures, what the downstream received, and the
 * copies the calls sent.
 * @param variant the variant's name
 * @param calls the calls made
 * @param failures failed calls, by exception type or HTTP status
 * @param nanos each call's latency
 * @param requests the requests the downstream received
 * @param slow the answers it delayed
 * @param hedgesSent hedges sent (extra copies)
 * @param hedgesWon hedges whose answer was the call's
 * @param hedgesHeldBack hedges due but not sent: the policy's hedge tokens were spent
 * @param retries retries after an attempt failed or timed out, by the failure
 * @param elapsed the run's wall-clock time
 */
public record HttpTailResult(String variant, int calls, Map<String, Long> failures, long[] nanos, long requests,
		long slow, long hedgesSent, long hedgesWon, long hedgesHeldBack, Map<String, Long> retries, Duration elapsed) {

	/** The columns of {@link #row()}. */
	public static final String HEADER = """
			| variant | p50 ms | p99 ms | p99.9 ms | max ms | extra requests | slow answers | hedges won / sent / held back | retries | failed calls |
			|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|""";

	/** @return the calls that failed */
	public long failedCalls() {
		return this.failures.values().stream().mapToLong(Long::longValue).sum();
	}

	/** @return the retries, whatever their failure */
	public long retried() {
		return this.retries.values().stream().mapToLong(Long::longValue).sum();
	}

	/** @return requests the downstream received per call, minus one */
	public double extraRequests() {
		return (double) this.requests / this.calls - 1;
	}

	/**
	 * @param quantile in (0, 1]
	 * @return that quantile of the calls' latencies (nearest rank), in milliseconds
	 */
	public double millis(double quantile) {
		long[] sorted = this.nanos.clone();
		Arrays.sort(sorted);
		int rank = (int) Math.ceil(quantile * sorted.length);
		return sorted[Math.max(0, Math.min(sorted.length, rank) - 1)] / 1e6;
	}

	/** @return the variant's row of the table */
	public String row() {
		return String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.1f | %.2f %% | %d | %d / %d / %d | %d%s | %d%s |",
				this.variant, millis(0.5), millis(0.99), millis(0.999), millis(1.0), 100 * extraRequests(), this.slow,
				this.hedgesWon, this.hedgesSent, this.hedgesHeldBack, retried(), this.retries.isEmpty() ? "" : " " + this.retries,
				failedCalls(), this.failures.isEmpty() ? "" : " " + this.failures);
	}

}
