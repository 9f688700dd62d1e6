package dev.backoff.benchmarks.hedging;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import dev.backoff.benchmarks.hedging.HedgingModel.Result;
import dev.backoff.benchmarks.hedging.HedgingModel.Scenario;
import dev.backoff.benchmarks.simulation.Chart.Axis;
import dev.backoff.benchmarks.simulation.Chart;
import dev.backoff.benchmarks.simulation.Runs;

/**
 * Runs {@link HedgingModel}'s default scenario with every {@link Variant} and writes the
 * latency percentiles (medians over the runs) as CSV, every run's figures as CSV, and an SVG
 * chart of the latency percentiles on a log scale; prints the table of docs/benchmarks.md.
 *
 * <p>Arguments, all optional: {@code runs} per variant (default {@link #DOCS_RUNS}), the calls
 * per run (default {@link #DOCS_CALLS}), the percentiles' CSV path (default
 * {@code docs/hedging.csv}), the runs' CSV path (default {@code docs/hedging-runs.csv}) and the
 * SVG path (default {@code docs/hedging.svg}). Run {@code n} of each variant uses seed
 * {@code n}, so the output is reproducible and the variants meet the same arrivals and answer
 * times.
 */
public final class HedgingSimulation {

	/** The runs per variant of the table in docs/benchmarks.md. */
	static final int DOCS_RUNS = 5;

	/** The calls per run of the table in docs/benchmarks.md: 100 beyond its p99.9. */
	static final int DOCS_CALLS = 100_000;

	private static final String[] COLORS = { "#d62728", "#1f77b4", "#17becf", "#2ca02c", "#98df8a", "#ff7f0e",
			"#9467bd" };

	private HedgingSimulation() {
	}

	public static void main(String[] args) throws IOException {
		int runs = (args.length > 0) ? Integer.parseInt(args[0]) : DOCS_RUNS;
		int calls = (args.length > 1) ? Integer.parseInt(args[1]) : DOCS_CALLS;
		Path curvesCsv = Path.of((args.length > 2) ? args[2] : "docs/hedging.csv");
		Path runsCsv = Path.of((args.length > 3) ? args[3] : "docs/hedging-runs.csv");
		Path svg = Path.of((args.length > 4) ? args[4] : "docs/hedging.svg");
		long started = System.nanoTime();
		Scenario scenario = Scenario.defaults().withCalls(calls);
		Map<Variant, List<Result>> results = simulate(scenario, runs);
		double seconds = (System.nanoTime() - started) / 1e9;
		Runs.write(curvesCsv, curvesCsv(results));
		Runs.write(runsCsv, runsCsv(results));
		Runs.write(svg, svg(scenario, results));
		System.out.println(table(scenario, results));
		System.out.printf(Locale.ROOT, "%d runs of %,d calls per variant, %.1f s; wrote %s, %s and %s%n", runs,
				calls, seconds, curvesCsv, runsCsv, svg);
	}

	static Map<Variant, List<Result>> simulate(Scenario scenario, int runs) {
		return Runs.simulate(Variant.class, List.of(Variant.values()), runs,
				(variant, seed) -> HedgingModel.run(scenario, variant, seed));
	}

	static String table(Scenario scenario, Map<Variant, List<Result>> results) {
		int runs = results.values().iterator().next().size();
		StringBuilder out = new StringBuilder(
				String.format(Locale.ROOT, "| median of %d runs of %,d calls |", runs, scenario.calls()));
		results.keySet().forEach((variant) -> out.append(" ").append(variant.label()).append(" |"));
		out.append("\n|---|");
		results.keySet().forEach((variant) -> out.append("---:|"));
		out.append("\n");
		out.append("| hedge delay or attempt timeout |");
		results.keySet().forEach((variant) -> out.append(" ")
			.append(variant.hasDelay() ? variant.delay(scenario).toMillis() + " ms" : "–")
			.append(" |"));
		out.append("\n");
		row(out, "p50 latency", results, (variantRuns) -> ms(Runs.median(variantRuns, Result::p50Ms)));
		row(out, "p99 latency", results, (variantRuns) -> ms(Runs.median(variantRuns, Result::p99Ms)));
		row(out, "p99.9 latency", results, (variantRuns) -> ms(Runs.median(variantRuns, Result::p999Ms)));
		double unhedged = Runs.median(results.get(Variant.NONE), Result::p999Ms);
		row(out, "p99.9, times lower than without hedging", results, (variantRuns) -> String.format(Locale.ROOT,
				"%.1f×", unhedged / Runs.median(variantRuns, Result::p999Ms)));
		row(out, "extra requests (requests / calls − 1)", results, (variantRuns) -> String.format(Locale.ROOT,
				"%.2f %%", 100 * Runs.median(variantRuns, Result::extraRequests)));
		row(out, "hedges won (of those sent)", results, (variantRuns) -> String.format(Locale.ROOT, "%,.0f (%,.0f)",
				Runs.median(variantRuns, Result::hedgesWon), Runs.median(variantRuns, Result::hedgesSent)));
		row(out, "hedges held back (hedge tokens spent)", results, (variantRuns) -> String.format(Locale.ROOT, "%,.0f",
				Runs.median(variantRuns, Result::hedgesHeldBack)));
		row(out, "calls without an answer (every attempt timed out)", results,
				(variantRuns) -> String.format(Locale.ROOT, "%,.0f", Runs.median(variantRuns, Result::failed)));
		return out.toString();
	}

	private static String ms(double ms) {
		return Double.isInfinite(ms) ? "none" : String.format(Locale.ROOT, "%,.1f ms", ms);
	}

	private static void row(StringBuilder out, String name, Map<Variant, List<Result>> results,
			Function<List<Result>, String> cell) {
		out.append("| ").append(name).append(" |");
		results.values().forEach((runs) -> out.append(" ").append(cell.apply(runs)).append(" |"));
		out.append("\n");
	}

	/** Per variant, the latency at each of the curves' percentiles, the median over the runs. */
	private static double[] curve(List<Result> runs) {
		double[] curve = new double[Result.CURVE_NINES.length];
		for (int i = 0; i < curve.length; i++) {
			int point = i;
			curve[i] = Runs.median(runs, (run) -> run.curveMs()[point]);
		}
		return curve;
	}

	static String curvesCsv(Map<Variant, List<Result>> results) {
		StringBuilder out = new StringBuilder("variant,runs,nines,percentile,latency_ms_median\n");
		results.forEach((variant, runs) -> {
			double[] curve = curve(runs);
			for (int i = 0; i < curve.length; i++) {
				double nines = Result.CURVE_NINES[i];
				out.append(String.format(Locale.ROOT, "%s,%d,%.2f,%.4f,%.3f%n", quoted(variant), runs.size(), nines,
						100 * (1 - Math.pow(10, -nines)), curve[i]));
			}
		});
		return out.toString();
	}

	static String runsCsv(Map<Variant, List<Result>> results) {
		StringBuilder out = new StringBuilder(
				"variant,seed,calls,requests,failed,hedges_sent,hedges_won,hedges_held_back,retries,p50_ms,p99_ms,p999_ms\n");
		results.forEach((variant, runs) -> {
			for (int seed = 0; seed < runs.size(); seed++) {
				Result r = runs.get(seed);
				out.append(String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%d,%d,%d,%d,%.3f,%.3f,%.3f%n", quoted(variant),
						seed, r.calls(), r.requests(), r.failed(), r.hedgesSent(), r.hedgesWon(), r.hedgesHeldBack(),
						r.retries(),
						r.p50Ms(), r.p99Ms(), r.p999Ms()));
			}
		});
		return out.toString();
	}

	/** The variant's label as a CSV field: quoted, as labels hold commas. */
	private static String quoted(Variant variant) {
		return '"' + variant.label() + '"';
	}

	static String svg(Scenario scenario, Map<Variant, List<Result>> results) {
		int runs = results.values().iterator().next().size();
		HeavyTailService service = scenario.service();
		Chart chart = new Chart(900, 520, String.format(Locale.ROOT,
				"Latency percentiles of %,d calls to a service answering in %.0f ms, %.0f %% of the time %.0f× slower; "
						+ "medians of %d runs",
				scenario.calls(), service.medianMs(), 100 * service.slowShare(), service.slowFactor(), runs));
		double last = Result.CURVE_NINES[Result.CURVE_NINES.length - 1];
		Chart.Panel panel = chart.panel(80, 50, 560, 400, "Call latency (ms, log scale)",
				Axis.linear(0, Math.ceil(last), (int) Math.ceil(last), "%.0f",
						"nines of the percentile: 1 = p90, 2 = p99, 3 = p99.9, 4 = p99.99"),
				Axis.log(1, 10_000, "%,.0f", ""));
		for (Map.Entry<Variant, List<Result>> entry : results.entrySet()) {
			// A call without an answer is off the scale: its point is left out.
			double[] curve = Arrays.stream(curve(entry.getValue()))
				.map((ms) -> Double.isInfinite(ms) ? Double.NaN : ms)
				.toArray();
			panel.line(Result.CURVE_NINES, curve, COLORS[entry.getKey().ordinal()]);
		}
		for (double nines : new double[] { 2, 3 }) {
			panel.vertical(nines, (nines == 2) ? "p99" : "p99.9", false);
		}
		int y = 70;
		for (Variant variant : results.keySet()) {
			String delay = variant.hasDelay() ? " (" + variant.delay(scenario).toMillis() + " ms)" : "";
			chart.legend(660, y, COLORS[variant.ordinal()], variant.label() + delay);
			y += 22;
		}
		return chart.end();
	}

}
