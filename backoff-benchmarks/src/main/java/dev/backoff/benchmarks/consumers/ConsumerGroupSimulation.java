package dev.backoff.benchmarks.consumers;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.IntStream;

import dev.backoff.benchmarks.consumers.ConsumerGroupModel.Result;
import dev.backoff.benchmarks.consumers.ConsumerGroupModel.Scenario;
import dev.backoff.benchmarks.consumers.ConsumerRetries.Variant;
import dev.backoff.benchmarks.simulation.Chart.Axis;
import dev.backoff.benchmarks.simulation.Chart;
import dev.backoff.benchmarks.simulation.Runs;
import dev.backoff.benchmarks.simulation.Statistics;

/**
 * Runs {@link ConsumerGroupModel}'s default scenario with every {@link Variant} and writes the
 * time series (means over the runs, per second) as CSV, every run's figures as CSV, and a
 * two-panel SVG chart (downstream calls per second, the group's lag); prints the medians.
 *
 * <p>Arguments, all optional: {@code runs} per variant (default {@link #DOCS_RUNS}), the time series' CSV path
 * (default {@code docs/consumers.csv}), the runs' CSV path (default
 * {@code docs/consumers-runs.csv}) and the SVG path (default {@code docs/consumers.svg}). Run
 * {@code n} of each variant uses seed {@code n}, so the output is reproducible and the variants
 * meet the same arrivals.
 */
public final class ConsumerGroupSimulation {

	/** The runs per variant of the table in docs/benchmarks.md, which its test recomputes. */
	static final int DOCS_RUNS = 10;

	/** The width of a step of the time series in the CSV and the chart. */
	static final double STEP_MS = 1000;

	/** Outage mode's longest pauses in the second table, longest first: the 30 s, the default, 5 s. */
	static final List<Duration> MAX_PAUSES = List.of(Duration.ofSeconds(30), ConsumerGroupModel.MAX_PAUSE,
			Duration.ofSeconds(5));

	private static final String[] COLORS = { "#d62728", "#ff7f0e", "#1f77b4", "#17becf", "#2ca02c", "#9467bd", "#000000",
			"#8c564b" };

	private ConsumerGroupSimulation() {
	}

	public static void main(String[] args) throws IOException {
		int runs = (args.length > 0) ? Integer.parseInt(args[0]) : DOCS_RUNS;
		Path seriesCsv = Path.of((args.length > 1) ? args[1] : "docs/consumers.csv");
		Path runsCsv = Path.of((args.length > 2) ? args[2] : "docs/consumers-runs.csv");
		Path svg = Path.of((args.length > 3) ? args[3] : "docs/consumers.svg");
		long started = System.nanoTime();
		Scenario scenario = Scenario.defaults();
		Map<Variant, List<Result>> results = simulate(scenario, runs);
		double seconds = (System.nanoTime() - started) / 1e9;
		Runs.write(seriesCsv, seriesCsv(scenario, results));
		Runs.write(runsCsv, runsCsv(results));
		Runs.write(svg, svg(scenario, results, runs));
		System.out.println(table(scenario, results));
		System.out.println(maxPauseTable(scenario, simulateMaxPauses(scenario, results)));
		System.out.println(breakerTable(scenario, results, simulateBreakerRecipe(scenario, results)));
		System.out.printf(Locale.ROOT, "%d runs per variant, %.1f s; wrote %s, %s and %s%n", runs, seconds, seriesCsv,
				runsCsv, svg);
	}

	static Map<Variant, List<Result>> simulate(Scenario scenario, int runs) {
		return Runs.simulate(Variant.class, List.of(Variant.values()), runs,
				(variant, seed) -> ConsumerGroupModel.run(scenario, variant, seed));
	}

	/** Outage mode's runs with each of {@link #MAX_PAUSES} but the default, which {@code results} holds. */
	static Map<Duration, List<Result>> simulateMaxPauses(Scenario scenario, Map<Variant, List<Result>> results) {
		Map<Duration, List<Result>> byMaxPause = new LinkedHashMap<>();
		for (Duration maxPause : MAX_PAUSES) {
			byMaxPause.put(maxPause, maxPause.equals(ConsumerGroupModel.MAX_PAUSE) ? results.get(Variant.OUTAGE)
					: IntStream.range(0, results.get(Variant.OUTAGE).size()).parallel()
						.mapToObj((seed) -> ConsumerGroupModel.run(scenario, Variant.OUTAGE, seed, maxPause,
								PausingBreaker.Settings.DEFAULTS))
						.toList());
		}
		return byMaxPause;
	}

	/** The breaker's runs with a recipe's settings: as many as {@code results} holds with the defaults. */
	static List<Result> simulateBreakerRecipe(Scenario scenario, Map<Variant, List<Result>> results) {
		return IntStream.range(0, results.get(Variant.BREAKER).size()).parallel()
			.mapToObj((seed) -> ConsumerGroupModel.run(scenario, Variant.BREAKER, seed, ConsumerGroupModel.MAX_PAUSE,
					PausingBreaker.Settings.RECIPE))
			.toList();
	}

	/** The breaker with Resilience4j's defaults and with a recipe's settings. */
	static String breakerTable(Scenario scenario, Map<Variant, List<Result>> results, List<Result> recipe) {
		StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
				"| Resilience4j circuit breaker, median of %d runs | calls per second during the outage | peak after "
						+ "recovery | backlog drained | records sent to the dead-letter topic |%n|---|---:|---:|---:|---:|%n",
				recipe.size()));
		Map<String, List<Result>> rows = new LinkedHashMap<>();
		rows.put("published defaults (window 100, 100 calls, 60 s open, 10 half-open)", results.get(Variant.BREAKER));
		rows.put("a recipe's (window 10, 5 calls, 30 s open, 3 half-open)", recipe);
		rows.forEach((settings, runs) -> out.append(String.format(Locale.ROOT, "| %s | %.1f | %.2f× | %s | %,.0f |%n",
				settings, Runs.median(runs, (run) -> run.outageCalls() / scenario.outageSeconds()),
				Runs.median(runs, (run) -> run.peakLoad(scenario)), drained(scenario, runs),
				Runs.median(runs, Result::deadLettered))));
		return out.toString();
	}

	/** Outage mode by its longest pause: the calls during the outage against the drain. */
	static String maxPauseTable(Scenario scenario, Map<Duration, List<Result>> byMaxPause) {
		int runs = byMaxPause.values().iterator().next().size();
		StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
				"| outage mode, median of %d runs | calls per second during the outage | peak after recovery | backlog drained |%n"
						+ "|---|---:|---:|---:|%n", runs));
		byMaxPause.forEach((maxPause, maxPauseRuns) -> out.append(String.format(Locale.ROOT,
				"| `outage-max-pause: %ds`%s | %.1f | %.2f× | %s |%n", maxPause.toSeconds(),
				maxPause.equals(ConsumerGroupModel.MAX_PAUSE) ? " (the default)" : "",
				Runs.median(maxPauseRuns, (run) -> run.outageCalls() / scenario.outageSeconds()),
				Runs.median(maxPauseRuns, (run) -> run.peakLoad(scenario)), drained(scenario, maxPauseRuns))));
		return out.toString();
	}

	static String table(Scenario scenario, Map<Variant, List<Result>> results) {
		int runs = results.values().iterator().next().size();
		StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "| median of %d runs |", runs));
		results.keySet().forEach((variant) -> out.append(" ").append(variant.label()).append(" |"));
		out.append("\n|---|");
		results.keySet().forEach((variant) -> out.append("---:|"));
		out.append("\n");
		row(out, "downstream calls per second during the outage", results,
				(variantRuns) -> String.format(Locale.ROOT, "%,.0f",
						Runs.median(variantRuns, (run) -> run.outageCalls() / scenario.outageSeconds())));
		row(out, String.format(Locale.ROOT, "peak calls per %.0f ms tick after recovery (× its capacity of %d)",
				scenario.tickMs(), scenario.capacityPerTick()), results,
				(variantRuns) -> String.format(Locale.ROOT, "%.0f (%.2f×)",
						Runs.median(variantRuns, Result::peakCallsPerTick),
						Runs.median(variantRuns, (run) -> run.peakLoad(scenario))));
		row(out, "backlog drained, after recovery (× the capacity-limited minimum)", results,
				(variantRuns) -> drained(scenario, variantRuns));
		row(out, "records sent to the dead-letter topic", results,
				(variantRuns) -> String.format(Locale.ROOT, "%,.0f", Runs.median(variantRuns, Result::deadLettered)));
		row(out, "downstream calls, in all", results,
				(variantRuns) -> String.format(Locale.ROOT, "%,.0f", Runs.median(variantRuns, Result::calls)));
		row(out, "records, in all", results,
				(variantRuns) -> String.format(Locale.ROOT, "%,.0f", Runs.median(variantRuns, Result::records)));
		return out.toString();
	}

	/**
	 * The median drain time in seconds, as a multiple of the capacity-limited minimum when there
	 * was a backlog (more than a record per consumer), and how many runs never drained, if any.
	 */
	private static String drained(Scenario scenario, List<Result> runs) {
		long never = runs.stream().filter((run) -> Double.isNaN(run.drainMs())).count();
		if (never == runs.size()) {
			return "never";
		}
		String median = String.format(Locale.ROOT, "%.1f s", Runs.median(runs, Result::drainMs) / 1000);
		if (Runs.median(runs, (run) -> run.backlog(scenario)) > scenario.consumers()) {
			median += String.format(Locale.ROOT, " (%.2f×)",
					Runs.median(runs, (run) -> run.drainMs() / run.minDrainMs(scenario)));
		}
		return (never > 0) ? median + String.format(Locale.ROOT, " (%d never)", never) : median;
	}

	private static void row(StringBuilder out, String name, Map<Variant, List<Result>> results,
			Function<List<Result>, String> cell) {
		out.append("| ").append(name).append(" |");
		results.values().forEach((runs) -> out.append(" ").append(cell.apply(runs)).append(" |"));
		out.append("\n");
	}

	/** Per step of {@link #STEP_MS}: the calls per second and the lag at the step's end, means over the runs. */
	private static double[][] steps(Scenario scenario, List<Result> runs) {
		int ticksPerStep = (int) (STEP_MS / scenario.tickMs());
		int steps = scenario.ticks() / ticksPerStep;
		double[] calls = new double[steps];
		double[] lag = new double[steps];
		for (Result run : runs) {
			for (int step = 0; step < steps; step++) {
				for (int tick = step * ticksPerStep; tick < (step + 1) * ticksPerStep; tick++) {
					calls[step] += run.callsPerTick()[tick];
				}
				lag[step] += run.lagPerTick()[(step + 1) * ticksPerStep - 1];
			}
		}
		for (int step = 0; step < steps; step++) {
			calls[step] = calls[step] / runs.size() * (1000 / STEP_MS);
			lag[step] /= runs.size();
		}
		return new double[][] { calls, lag };
	}

	static String seriesCsv(Scenario scenario, Map<Variant, List<Result>> results) {
		StringBuilder out = new StringBuilder("variant,start_s,runs,calls_per_second_mean,lag_mean\n");
		results.forEach((variant, runs) -> {
			double[][] steps = steps(scenario, runs);
			for (int step = 0; step < steps[0].length; step++) {
				out.append(String.format(Locale.ROOT, "%s,%.0f,%d,%.1f,%.1f%n", quoted(variant),
						step * STEP_MS / 1000, runs.size(), steps[0][step], steps[1][step]));
			}
		});
		return out.toString();
	}

	static String runsCsv(Map<Variant, List<Result>> results) {
		StringBuilder out = new StringBuilder("variant,seed,records,calls,outage_calls,peak_calls_per_tick,"
				+ "drain_ms,dead_lettered,max_deliveries,min_dead_letter_deliveries,max_dead_letter_deliveries\n");
		results.forEach((variant, runs) -> {
			for (int seed = 0; seed < runs.size(); seed++) {
				Result r = runs.get(seed);
				out.append(String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%d,%s,%d,%d,%d,%d%n", quoted(variant), seed,
						r.records(), r.calls(), r.outageCalls(), r.peakCallsPerTick(),
						Double.isNaN(r.drainMs()) ? "" : String.format(Locale.ROOT, "%.0f", r.drainMs()),
						r.deadLettered(), r.maxDeliveries(), r.minDeadLetterDeliveries(),
						r.maxDeadLetterDeliveries()));
			}
		});
		return out.toString();
	}

	/** The variant's label as a CSV field: quoted, as labels hold commas. */
	private static String quoted(Variant variant) {
		return '"' + variant.label() + '"';
	}

	static String svg(Scenario scenario, Map<Variant, List<Result>> results, int runs) {
		Chart chart = new Chart(1000, 490, String.format(Locale.ROOT,
				"A consumer group during an outage, simulated: %d consumers; every call fails for %.0f s, "
						+ "then %,.0f calls/s succeed; means of %d runs",
				scenario.consumers(), scenario.outageSeconds(), scenario.capacityPerTick() * 1000 / scenario.tickMs(),
				runs));
		double seconds = scenario.durationMs() / 1000;
		double maxCalls = scenario.consumers() * 1000 / scenario.callMs();
		Chart.Panel load = chart.panel(70, 50, 380, 310, "Downstream calls per second",
				Axis.linear(seconds, 6, "%.0f", "simulated time (s)"), Axis.linear(maxCalls, 5, "%,.0f", ""));
		double[][][] all = new double[Variant.values().length][][];
		double maxLag = 1;
		for (Map.Entry<Variant, List<Result>> entry : results.entrySet()) {
			all[entry.getKey().ordinal()] = steps(scenario, entry.getValue());
			maxLag = Math.max(maxLag, Statistics.quantile(all[entry.getKey().ordinal()][1], 1.0));
		}
		Chart.Panel lag = chart.panel(570, 50, 380, 310, "The group's lag (records arrived, not done)",
				Axis.linear(seconds, 6, "%.0f", "simulated time (s)"),
				Axis.linear(Chart.niceCeil(maxLag), 5, "%,.0f", ""));
		for (Variant variant : results.keySet()) {
			double[][] steps = all[variant.ordinal()];
			double[] ends = IntStream.range(0, steps[0].length).mapToDouble((step) -> (step + 1) * STEP_MS / 1000)
				.toArray();
			load.line(ends, steps[0], COLORS[variant.ordinal()]);
			lag.line(ends, steps[1], COLORS[variant.ordinal()]);
		}
		for (Chart.Panel panel : new Chart.Panel[] { load, lag }) {
			panel.vertical(scenario.outageStartMs() / 1000, "outage", false);
			panel.vertical(scenario.outageEndMs() / 1000, "recovery", false);
		}
		load.horizontal(scenario.capacityPerTick() * 1000 / scenario.tickMs(), "capacity after recovery");
		int x = 60;
		int y = 425;
		for (Variant variant : results.keySet()) {
			chart.legend(x, y, COLORS[variant.ordinal()], variant.label());
			x += 300;
			if (x > 700) {
				x = 60;
				y += 20;
			}
		}
		return chart.end();
	}

}
