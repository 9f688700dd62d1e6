package dev.backoff.benchmarks.amplification;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import dev.backoff.benchmarks.amplification.AmplificationModel.Bucket;
import dev.backoff.benchmarks.amplification.AmplificationModel.Result;
import dev.backoff.benchmarks.amplification.AmplificationModel.Scenario;
import dev.backoff.benchmarks.amplification.AmplificationModel.Variant;
import dev.backoff.benchmarks.simulation.Chart;
import dev.backoff.benchmarks.simulation.Chart.Axis;
import dev.backoff.benchmarks.simulation.Runs;
import dev.backoff.benchmarks.simulation.Statistics;

/**
 * Runs {@link AmplificationModel}'s default scenario with and without a retry budget and writes
 * the time series (means over the runs) as CSV, every run's figures as CSV, and a hand-written
 * two-panel SVG chart (attempts per logical request, the budget's tokens); prints the medians,
 * and the attempts per request of partial outages as well. Then runs the throttling episode
 * with all four {@link Variant variants}, writes every run's figures as CSV and prints the
 * medians.
 *
 * <p>Arguments, all optional: {@code runs} per variant (default 50), the time series' CSV path
 * (default {@code docs/amplification.csv}), the runs' CSV path (default
 * {@code docs/amplification-runs.csv}), the SVG path (default {@code docs/amplification.svg})
 * and the throttling episode's runs' CSV path (default {@code docs/throttling-runs.csv}).
 * Run {@code n} of each variant uses seed {@code n}, so the output is reproducible and the two
 * variants meet the same think times and network.
 */
public final class AmplificationSimulation {

	/** The variants of the outage: without a throttling schedule, as nothing there is throttling. */
	static final List<Variant> OUTAGE_VARIANTS = List.of(Variant.WITHOUT_BUDGET, Variant.WITH_BUDGET);

	/** The outage failure rates of the partial-outage table. */
	static final double[] OUTAGE_FAILURE_RATES = { 0.05, 0.1, 0.25, 0.5, 1.0 };

	/** The rate limits of the throttling-episode table, in attempts per second. */
	static final double[] THROTTLE_LIMITS = { 800, 700, 600, 400, 200 };

	/** The width of a step of the time series in the CSV and the chart's left panel. */
	static final double STEP_MS = 100;

	/** The start of the zoom on recovery, relative to it. */
	static final double ZOOM_FROM_MS = -100;

	/** The end of the zoom on recovery, relative to it. */
	static final double ZOOM_TO_MS = 500;

	private static final String[] COLORS = { "#d62728", "#1f77b4" };

	private AmplificationSimulation() {
	}

	public static void main(String[] args) throws IOException {
		int runs = (args.length > 0) ? Integer.parseInt(args[0]) : 50;
		Path seriesCsv = Path.of((args.length > 1) ? args[1] : "docs/amplification.csv");
		Path runsCsv = Path.of((args.length > 2) ? args[2] : "docs/amplification-runs.csv");
		Path svg = Path.of((args.length > 3) ? args[3] : "docs/amplification.svg");
		Path throttlingCsv = Path.of((args.length > 4) ? args[4] : "docs/throttling-runs.csv");
		long started = System.nanoTime();
		Scenario scenario = Scenario.defaults();
		Map<Variant, List<Result>> results = simulate(scenario, runs, OUTAGE_VARIANTS);
		String partial = partialOutageTable(scenario, results);
		Scenario episode = Scenario.throttlingEpisode();
		Map<Variant, List<Result>> throttling = simulate(episode, runs, List.of(Variant.values()));
		String limits = throttleLimitTable(episode, throttling);
		double seconds = (System.nanoTime() - started) / 1e9;
		Runs.write(seriesCsv, seriesCsv(scenario, results));
		Runs.write(runsCsv, runsCsv(results));
		Runs.write(svg, svg(scenario, results, runs));
		Runs.write(throttlingCsv, runsCsv(throttling));
		System.out.println(table(scenario, results));
		System.out.println(partial);
		System.out.println(throttlingTable(episode, throttling));
		System.out.println(limits);
		System.out.printf(Locale.ROOT, "%d runs per variant, %d scenarios, %.1f s; wrote %s, %s, %s and %s%n", runs,
				2 + OUTAGE_FAILURE_RATES.length + THROTTLE_LIMITS.length, seconds, seriesCsv, runsCsv, svg, throttlingCsv);
	}

	static Map<Variant, List<Result>> simulate(Scenario scenario, int runs, List<Variant> variants) {
		return Runs.simulate(Variant.class, variants, runs, (variant, seed) -> AmplificationModel.run(scenario, variant, seed));
	}

	static String table(Scenario scenario, Map<Variant, List<Result>> results) {
		StringBuilder out = header("median of %d runs (times: 10th–90th percentile in brackets)", results);
		row(out, "attempts per logical request, during the outage", "%.4f", results,
				Result::outageAttemptsPerRequest);
		row(out, "attempts per logical request, after recovery", "%.4f", results,
				Result::recoveredAttemptsPerRequest);
		row(out, "attempts per second reaching the dependency, during the outage", "%,.0f", results,
				(run) -> outageLoad(scenario, run));
		row(out, "attempts, in all", "%,.0f", results, Result::attempts);
		row(out, "logical requests, in all", "%,.0f", results, Result::requests);
		out.append("| budget allows retries again, after recovery |");
		results.forEach((variant, runs) -> out
			.append(variant.hasBudget() ? " " + spread(runs, Result::budgetReopensMs) + " |" : " never closed |"));
		out.append("\n| first retry after recovery |");
		results.forEach((variant, runs) -> out.append(" ").append(spread(runs, Result::firstRetryMs)).append(" |"));
		out.append("\n");
		row(out, "retries after recovery", "%,.0f", results, Result::retriesAfterRecovery);
		row(out, "calls ended by the budget after recovery", "%,.0f", results, Result::deniedAfterRecovery);
		return out.toString();
	}

	/**
	 * Attempts per request during outages in which only a share of the attempts fail.
	 * @param scenario the outage, whose failure rate each row replaces
	 * @param outage its runs of {@link #OUTAGE_VARIANTS}: the row of its own rate, not run again
	 */
	static String partialOutageTable(Scenario scenario, Map<Variant, List<Result>> outage) {
		int runs = outage.values().iterator().next().size();
		StringBuilder out = new StringBuilder(
				"| outage failure rate | attempts per request during the outage, without budget | with budget |\n"
						+ "|---:|---:|---:|\n");
		for (double rate : OUTAGE_FAILURE_RATES) {
			Scenario partial = scenario.withOutageFailureRate(rate);
			Map<Variant, List<Result>> brownout = partial.equals(scenario) ? outage
					: simulate(partial, runs, OUTAGE_VARIANTS);
			out.append(String.format(Locale.ROOT, "| %.0f %% | %.3f | %.3f |%n", rate * 100,
					Runs.median(brownout.get(Variant.WITHOUT_BUDGET), Result::outageAttemptsPerRequest),
					Runs.median(brownout.get(Variant.WITH_BUDGET), Result::outageAttemptsPerRequest)));
		}
		return out.toString();
	}

	/**
	 * Per rate limit and variant: attempts per request during the episode, and the share that succeeded.
	 * @param episode the throttling episode, whose rate limit each row replaces
	 * @param throttling its runs of every variant: the row of its own limit, not run again
	 */
	static String throttleLimitTable(Scenario episode, Map<Variant, List<Result>> throttling) {
		int runs = throttling.values().iterator().next().size();
		StringBuilder out = new StringBuilder("| dependency admits, per second |");
		for (Variant variant : Variant.values()) {
			out.append(" ").append(variant.label()).append(" |");
		}
		out.append("\n|---:|---:|---:|---:|---:|\n");
		for (double limit : THROTTLE_LIMITS) {
			out.append(String.format(Locale.ROOT, "| %,.0f |", limit));
			Scenario limited = episode.withThrottleLimit(limit);
			(limited.equals(episode) ? throttling : simulate(limited, runs, List.of(Variant.values())))
				.forEach((variant, variantRuns) -> out.append(String.format(Locale.ROOT, " %.3f (%.1f %%) |",
						Runs.median(variantRuns, Result::outageAttemptsPerRequest),
						Runs.median(variantRuns, Result::outageSuccessRate) * 100)));
			out.append("\n");
		}
		return out.toString();
	}

	/** The throttling episode's medians, one column per variant. */
	static String throttlingTable(Scenario scenario, Map<Variant, List<Result>> results) {
		StringBuilder out = header("median of %d runs", results);
		row(out, "attempts per logical request, during the episode", "%.3f", results,
				Result::outageAttemptsPerRequest);
		row(out, "attempts per logical request, after it", "%.3f", results, Result::recoveredAttemptsPerRequest);
		row(out, String.format(Locale.ROOT, "attempts per second reaching the dependency (it admits %,.0f)",
				scenario.throttleLimitPerSecond()), "%,.0f", results, (run) -> outageLoad(scenario, run));
		row(out, "attempts answered 429", "%.1f %%", results, (run) -> run.outageThrottledShare() * 100);
		row(out, "requests that succeeded", "%.1f %%", results, (run) -> run.outageSuccessRate() * 100);
		row(out, "requests that succeeded, per second", "%,.0f", results,
				(run) -> run.outageSucceeded() / (scenario.recoveryMs() / 1000));
		row(out, "request latency, mean", "%,.0f ms", results, Result::outageLatencyMeanMs);
		row(out, "request latency, 99th percentile", "%,.0f ms", results, Result::outageLatencyP99Ms);
		return out.toString();
	}

	private static StringBuilder header(String first, Map<Variant, List<Result>> results) {
		int runs = results.values().iterator().next().size();
		StringBuilder out = new StringBuilder("| ").append(String.format(Locale.ROOT, first, runs)).append(" |");
		results.keySet().forEach((variant) -> out.append(" ").append(variant.label()).append(" |"));
		out.append("\n|---|");
		results.keySet().forEach((variant) -> out.append("---:|"));
		return out.append("\n");
	}

	/** A time in milliseconds: the median, and the 10th to 90th percentile in brackets. */
	private static String spread(List<Result> runs, ToDoubleFunction<Result> value) {
		double[] values = runs.stream().mapToDouble(value).filter((v) -> !Double.isNaN(v)).toArray();
		return String.format(Locale.ROOT, "%.0f ms (%.0f–%.0f)", Statistics.median(values),
				Statistics.quantile(values, 0.1), Statistics.quantile(values, 0.9));
	}

	private static void row(StringBuilder out, String name, String format, Map<Variant, List<Result>> results,
			ToDoubleFunction<Result> value) {
		out.append("| ").append(name).append(" |");
		results.values()
			.forEach((runs) -> out.append(" ").append(String.format(Locale.ROOT, format, Runs.median(runs, value))).append(" |"));
		out.append("\n");
	}

	/** The attempts that reached the dependency before recovery, per second. */
	static double outageLoad(Scenario scenario, Result run) {
		int buckets = (int) Math.round(scenario.recoveryMs() / scenario.bucketMs());
		long attempts = run.series().subList(0, buckets).stream().mapToLong(Bucket::attempts).sum();
		return attempts / (scenario.recoveryMs() / 1000);
	}

	/** One step of a time series, as means over the runs. */
	record Step(double startMs, double stepMs, double requests, double attempts, double tokens) {

		double attemptsPerRequest() {
			return this.attempts / this.requests;
		}

	}

	/**
	 * The runs' series in steps of {@code stepMs} from {@code fromMs} to {@code toMs}: per step
	 * the mean requests and attempts over the runs, and the mean tokens at the step's end.
	 */
	static List<Step> steps(Scenario scenario, List<Result> runs, double fromMs, double toMs, double stepMs) {
		int perStep = (int) Math.round(stepMs / scenario.bucketMs());
		int end = Math.min(scenario.buckets(), (int) Math.round(toMs / scenario.bucketMs()));
		List<Step> steps = new ArrayList<>();
		for (int first = (int) Math.round(fromMs / scenario.bucketMs()); first + perStep <= end; first += perStep) {
			double requests = 0;
			double attempts = 0;
			double tokens = 0;
			for (Result run : runs) {
				List<Bucket> window = run.series().subList(first, first + perStep);
				requests += window.stream().mapToLong(Bucket::requests).sum();
				attempts += window.stream().mapToLong(Bucket::attempts).sum();
				tokens += window.get(perStep - 1).tokens();
			}
			steps.add(new Step(first * scenario.bucketMs(), stepMs, requests / runs.size(), attempts / runs.size(),
					tokens / runs.size()));
		}
		return steps;
	}

	/** The whole run in steps of {@link #STEP_MS}. */
	private static List<Step> whole(Scenario scenario, List<Result> runs) {
		return steps(scenario, runs, 0, scenario.durationMs(), STEP_MS);
	}

	/** The moments around recovery in steps of the model's own resolution. */
	private static List<Step> aroundRecovery(Scenario scenario, List<Result> runs) {
		return steps(scenario, runs, scenario.recoveryMs() + ZOOM_FROM_MS, scenario.recoveryMs() + ZOOM_TO_MS,
				scenario.bucketMs());
	}

	static String seriesCsv(Scenario scenario, Map<Variant, List<Result>> results) {
		StringBuilder out = new StringBuilder(
				"variant,step_ms,start_ms,runs,requests_mean,attempts_mean,attempts_per_request,tokens_mean\n");
		for (boolean zoom : new boolean[] { false, true }) {
			results.forEach((variant, runs) -> {
				for (Step step : zoom ? aroundRecovery(scenario, runs) : whole(scenario, runs)) {
					out.append(String.format(Locale.ROOT, "%s,%.0f,%.0f,%d,%.2f,%.2f,%.4f,%s%n", variant.label(),
							step.stepMs(), step.startMs(), runs.size(), step.requests(), step.attempts(),
							step.attemptsPerRequest(), Double.isNaN(step.tokens()) ? ""
									: String.format(Locale.ROOT, "%.3f", step.tokens())));
				}
			});
		}
		return out.toString();
	}

	static String runsCsv(Map<Variant, List<Result>> results) {
		StringBuilder out = new StringBuilder("variant,seed,requests,attempts,outage_requests,outage_attempts,"
				+ "recovered_requests,recovered_attempts,budget_reopens_ms,first_retry_ms,retries_after_recovery,"
				+ "denied_after_recovery,final_tokens,outage_succeeded,outage_throttled_share,outage_latency_mean_ms,"
				+ "outage_latency_p99_ms\n");
		results.forEach((variant, runs) -> {
			for (int seed = 0; seed < runs.size(); seed++) {
				Result r = runs.get(seed);
				out.append(String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%d,%d,%d,%s,%s,%d,%d,%s,%d,%.4f,%s,%s%n",
						variant.label(), seed, r.requests(), r.attempts(), r.outageRequests(), r.outageAttempts(),
						r.recoveredRequests(), r.recoveredAttempts(), number(r.budgetReopensMs()),
						number(r.firstRetryMs()), r.retriesAfterRecovery(), r.deniedAfterRecovery(),
						number(r.finalTokens()), r.outageSucceeded(), r.outageThrottledShare(),
						number(r.outageLatencyMeanMs()), number(r.outageLatencyP99Ms())));
			}
		});
		return out.toString();
	}

	/** A CSV field: empty for NaN. */
	private static String number(double value) {
		return Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.1f", value);
	}

	static String svg(Scenario scenario, Map<Variant, List<Result>> results, int runs) {
		Chart chart = new Chart(1000, 440, String.format(Locale.ROOT,
				"Retry amplification, simulated: %d clients; every attempt fails for %.0f s, then %.0f %%; means of %d runs",
				scenario.clients(), scenario.recoveryMs() / 1000, scenario.residualFailureRate() * 100, runs));
		Chart.Panel amplification = chart.panel(60, 50, 380, 310,
				String.format(Locale.ROOT, "Attempts per logical request, per %.0f ms", STEP_MS),
				Axis.linear(scenario.durationMs() / 1000, 6, "%.0f", "simulated time (s)"),
				Axis.linear(AmplificationModel.MAX_ATTEMPTS + 1, AmplificationModel.MAX_ATTEMPTS + 1, "%.0f", ""));
		Chart.Panel tokens = chart.panel(560, 50, 380, 310, "Around recovery: the budget's tokens (with budget)",
				Axis.linear(ZOOM_FROM_MS, ZOOM_TO_MS, 6, "%.0f", "ms after recovery"),
				Axis.linear(AmplificationModel.MAX_TOKENS, 5, "%.0f", ""));
		results.forEach((variant, variantRuns) -> {
			List<Step> whole = whole(scenario, variantRuns);
			// Each step's ratio at its middle, in seconds; the tokens at each step's end, after recovery.
			double[] middles = whole.stream()
				.mapToDouble((step) -> (step.startMs() + step.stepMs() / 2) / 1000)
				.toArray();
			amplification.line(middles, whole.stream().mapToDouble(Step::attemptsPerRequest).toArray(),
					COLORS[variant.ordinal()]);
			if (variant == Variant.WITH_BUDGET) {
				List<Step> zoom = aroundRecovery(scenario, variantRuns);
				double[] ends = zoom.stream()
					.mapToDouble((step) -> step.startMs() + step.stepMs() - scenario.recoveryMs())
					.toArray();
				tokens.line(ends, zoom.stream().mapToDouble(Step::tokens).toArray(), COLORS[variant.ordinal()]);
				tokens.vertical(Runs.median(variantRuns, Result::firstRetryMs), "first retry (median)", false);
			}
		});
		amplification.vertical(scenario.recoveryMs() / 1000, "recovery", true);
		tokens.vertical(0, "recovery", true);
		tokens.horizontal(AmplificationModel.MAX_TOKENS / 2, "retries need more than half");
		int x = 300;
		for (Variant variant : results.keySet()) {
			chart.legend(x, 425, COLORS[variant.ordinal()], variant.label());
			x += 200;
		}
		return chart.end();
	}

}
