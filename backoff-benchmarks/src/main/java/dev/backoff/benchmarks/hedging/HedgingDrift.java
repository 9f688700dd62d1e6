package dev.backoff.benchmarks.hedging;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import dev.backoff.BackoffPolicy;
import dev.backoff.benchmarks.hedging.HedgingModel.Scenario;
import dev.backoff.benchmarks.hedging.HedgingModel.Trace;
import dev.backoff.benchmarks.simulation.Statistics;

/**
 * A fixed hedge delay against one that follows the method's own latency
 * ({@code hedge-percentile}) when the service slows down: {@link HedgingModel}'s default
 * service, {@value #CALLS} calls at 1,000 a second, every answer {@value #DRIFT} times slower
 * from the middle call on, 100 seconds in.
 * The fixed delay is the service's p95 before it slowed; the learned one starts from it (its
 * {@code hedge-delay}) and then takes the p95 of the answers, in Spring's own
 * {@code RecentLatencies} on the model's virtual clock. Prints the table of docs/hedging.md.
 *
 * The calls after the slowdown are told apart: those of its first minute, while the learned
 * delay's window still holds answers from before, and those after; and the most extra requests
 * of any minute after it (every window of 60 seconds' calls, a second apart). Each hedging
 * policy runs with the default cap on hedges ({@code hedge-max-extra-load: 0.05}), as in Spring,
 * and without it, as before the cap.
 *
 * <p>Argument, optional: the calls (default {@value #CALLS}). Seed 0: the output is
 * reproducible, and the three policies meet the same arrivals and answer times.
 */
public final class HedgingDrift {

	/** How many times slower the service answers in the second half. */
	static final int DRIFT = 3;

	/** The calls of the docs' run: 200 seconds, a minute and more after the slowdown. */
	public static final int CALLS = 200_000;

	private HedgingDrift() {
	}

	public static void main(String[] args) {
		int calls = (args.length > 0) ? Integer.parseInt(args[0]) : CALLS;
		System.out.println(table(scenario(calls), run(scenario(calls))));
	}

	/**
	 * @param calls the calls, half before the slowdown
	 * @return the default service at 1,000 calls a second, {@value #DRIFT} times slower from the middle call
	 */
	public static Scenario scenario(int calls) {
		return Scenario.defaults().withCalls(calls).withDrift(DRIFT);
	}

	/**
	 * One policy's figures.
	 * @param label the policy, as the table names it
	 * @param before the calls before the service slowed
	 * @param firstMinute the calls of the first minute after
	 * @param later the calls after that
	 * @param worstMinute the most extra requests in any minute after the service slowed, as a share of its calls
	 * @param trace every call of the run, for a chart (the overload report's)
	 */
	public record Row(String label, Part before, Part firstMinute, Part later, double worstMinute, Trace trace) {
	}

	/**
	 * @param extraRequests the requests beyond one per call, as a share of the calls
	 * @param p50Ms the calls' median latency
	 * @param p999Ms their 99.9th percentile
	 */
	public record Part(double extraRequests, double p50Ms, double p999Ms) {
	}

	/**
	 * @param scenario what is simulated
	 * @return the figures of no hedging, a fixed and a learned hedge delay with the cap, and both without it
	 */
	public static List<Row> run(Scenario scenario) {
		Duration p95 = scenario.delayAt(95);
		BackoffPolicy none = BackoffPolicy.builder().maxAttempts(scenario.maxAttempts()).build();
		BackoffPolicy fixed = none.toBuilder().hedgeDelay(p95).maxHedges(1).build();
		BackoffPolicy learned = fixed.toBuilder().hedgePercentile(95.0).build();
		Scenario uncapped = scenario.withHedgeMaxExtraLoad(0);
		String delay = "hedge-delay: " + p95.toMillis() + "ms";
		return List.of(row("no hedging", none, scenario), row(delay, fixed, scenario),
				row("hedge-percentile: 95", learned, scenario), row(delay + ", no cap", fixed, uncapped),
				row("hedge-percentile: 95, no cap", learned, uncapped));
	}

	private static Row row(String label, BackoffPolicy policy, Scenario scenario) {
		Trace trace = HedgingModel.trace(scenario, policy, 0);
		int middle = scenario.calls() / 2;
		int minute = Math.min(middle + (int) (60 * scenario.callsPerSecond()), scenario.calls());
		return new Row(label, part(trace, 0, middle), part(trace, middle, minute),
				part(trace, minute, scenario.calls()), worstMinute(trace, middle, minute - middle,
						(int) scenario.callsPerSecond()), trace);
	}

	/** The most extra requests of any {@code window} calls from {@code from} on, windows {@code step} calls apart. */
	private static double worstMinute(Trace trace, int from, int window, int step) {
		int calls = trace.latencyMs().length;
		double worst = 0;
		for (int start = from; start + window <= calls; start += step) {
			worst = Math.max(worst, part(trace, start, start + window).extraRequests());
		}
		return worst;
	}

	/** The calls {@code from} (inclusive) to {@code to}: their requests, from each call's traced copies. */
	private static Part part(Trace trace, int from, int to) {
		long requests = 0;
		for (int i = from * HedgingModel.TRACED_COPIES; i < to * HedgingModel.TRACED_COPIES; i++) {
			if (!Double.isNaN(trace.copyMs()[i])) {
				requests++;
			}
		}
		double[] latency = Arrays.copyOfRange(trace.latencyMs(), from, to);
		return new Part((double) requests / (to - from) - 1, Statistics.quantile(latency, 0.5),
				Statistics.quantile(latency, 0.999));
	}

	/**
	 * @param scenario what was simulated
	 * @param rows its figures
	 * @return the table of docs/hedging.md
	 */
	public static String table(Scenario scenario, List<Row> rows) {
		StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "| %,d calls, %d× slower from the middle one "
				+ "| extra requests before | in the first minute after | later | most in any minute after "
				+ "| p99.9 before | p99.9 in the first minute after | p99.9 later | p50 later |%n", scenario.calls(), DRIFT));
		out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		for (Row row : rows) {
			out.append(String.format(Locale.ROOT,
					"| %s | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.0f ms | %.0f ms | %.0f ms | %.1f ms |%n", row.label(),
					100 * row.before().extraRequests(), 100 * row.firstMinute().extraRequests(),
					100 * row.later().extraRequests(), 100 * row.worstMinute(), row.before().p999Ms(),
					row.firstMinute().p999Ms(), row.later().p999Ms(), row.later().p50Ms()));
		}
		return out.toString();
	}

}
