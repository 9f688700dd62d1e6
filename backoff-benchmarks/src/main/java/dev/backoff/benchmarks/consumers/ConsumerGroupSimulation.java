package dev.backoff.benchmarks.consumers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import dev.backoff.benchmarks.consumers.ConsumerGroupModel.Result;
import dev.backoff.benchmarks.consumers.ConsumerGroupModel.Variant;
import dev.backoff.benchmarks.simulation.Chart;
import dev.backoff.benchmarks.simulation.Chart.Axis;

/**
 * Runs {@link ConsumerGroupModel} for every variant over seeded runs, prints the table that
 * docs/benchmarks.md shows, and writes the per-second load as CSV and SVG:
 * {@code java -cp "$(cat target/classpath.txt):target/classes" dev.backoff.benchmarks.consumers.ConsumerGroupSimulation [runs]}
 * from {@code backoff-benchmarks}.
 */
public final class ConsumerGroupSimulation {

	/** Runs behind the docs' table: medians. */
	public static final int RUNS = 5;

	private static final String[] COLORS = { "#d62728", "#ff7f0e", "#1f77b4", "#2ca02c", "#9467bd", "#17becf" };

	private ConsumerGroupSimulation() {
	}

	public static void main(String[] args) throws IOException {
		int runs = (args.length > 0) ? Integer.parseInt(args[0]) : RUNS;
		Map<Variant, List<Result>> results = simulate(runs);
		System.out.print(table(results, runs));
		Files.writeString(Path.of("../docs/consumers.csv"), csv(results), StandardCharsets.UTF_8);
		Files.writeString(Path.of("../docs/consumers.svg"), svg(results, runs), StandardCharsets.UTF_8);
	}

	public static Map<Variant, List<Result>> simulate(int runs) {
		Map<Variant, List<Result>> results = new EnumMap<>(Variant.class);
		for (Variant variant : Variant.values()) {
			List<Result> variantRuns = new ArrayList<>();
			for (int seed = 1; seed <= runs; seed++) {
				variantRuns.add(ConsumerGroupModel.run(variant, seed));
			}
			results.put(variant, variantRuns);
		}
		return results;
	}

	public static String table(Map<Variant, List<Result>> results, int runs) {
		StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
				"%d consumers, %d records/s in all; the downstream fails every call from %d s to %d s, then serves %d calls/s; "
						+ "%d deliveries at most; medians of %d runs%n%n",
				ConsumerGroupModel.CONSUMERS,
				(int) (ConsumerGroupModel.CONSUMERS * ConsumerGroupModel.RECORDS_PER_CONSUMER_PER_S),
				ConsumerGroupModel.OUTAGE_FROM_MS / 1000, ConsumerGroupModel.OUTAGE_TO_MS / 1000,
				ConsumerGroupModel.CAPACITY_PER_S, ConsumerGroupModel.MAX_ATTEMPTS, runs));
		table.append("| back-off | calls during the outage | peak load after recovery (x capacity) | backlog drained after (s) "
				+ "| dead letters | downstream calls |\n");
		table.append("|---|---:|---:|---:|---:|---:|\n");
		results.forEach((variant, variantRuns) -> {
			double drain = median(variantRuns, Result::drainS);
			table.append(String.format(Locale.ROOT, "| %s | %.0f | %.2f | %s | %.0f | %.0f |%n", variant.label(),
					median(variantRuns, (r) -> r.outageCalls()), median(variantRuns, Result::peakLoad), Double.isNaN(drain) ? "not within the run" : String.format(Locale.ROOT, "%.1f", drain),
					median(variantRuns, (r) -> r.deadLetters()), median(variantRuns, (r) -> r.calls())));
		});
		return table.toString();
	}

	static double median(List<Result> runs, ToDoubleFunction<Result> value) {
		double[] values = runs.stream().mapToDouble(value).sorted().toArray();
		if (Arrays.stream(values).anyMatch(Double::isNaN)) {
			return Double.NaN;
		}
		return values[values.length / 2];
	}

	static String csv(Map<Variant, List<Result>> results) {
		StringBuilder csv = new StringBuilder("variant,second,calls_mean\n");
		results.forEach((variant, runs) -> {
			for (int second = 0; second < runs.get(0).callsPerSecond().length; second++) {
				int s = second;
				csv.append(String.format(Locale.ROOT, "%s,%d,%.1f%n", variant.label().replace(',', ';'), second,
						runs.stream().mapToInt((r) -> r.callsPerSecond()[s]).average().orElse(0)));
			}
		});
		return csv.toString();
	}

	static String svg(Map<Variant, List<Result>> results, int runs) {
		Chart chart = new Chart(1000, 460, String.format(Locale.ROOT,
				"A consumer group's calls on the downstream: outage %d-%d s, then %d calls/s; means of %d runs",
				ConsumerGroupModel.OUTAGE_FROM_MS / 1000, ConsumerGroupModel.OUTAGE_TO_MS / 1000,
				ConsumerGroupModel.CAPACITY_PER_S, runs));
		double max = 0;
		for (List<Result> variantRuns : results.values()) {
			for (Result run : variantRuns) {
				max = Math.max(max, Arrays.stream(run.callsPerSecond()).max().orElse(0));
			}
		}
		Chart.Panel load = chart.panel(70, 50, 880, 320, "Downstream calls per second",
				Axis.linear(ConsumerGroupModel.DURATION_MS / 1000.0, 9, "%.0f", "simulated time (s)"),
				Axis.linear(Chart.niceCeil(max), 5, "%.0f", ""));
		results.forEach((variant, variantRuns) -> {
			int seconds = variantRuns.get(0).callsPerSecond().length;
			double[] xs = new double[seconds];
			double[] ys = new double[seconds];
			for (int s = 0; s < seconds; s++) {
				int second = s;
				xs[s] = s + 0.5;
				ys[s] = variantRuns.stream().mapToInt((r) -> r.callsPerSecond()[second]).average().orElse(0);
			}
			load.line(xs, ys, COLORS[variant.ordinal()]);
		});
		load.horizontal(ConsumerGroupModel.CAPACITY_PER_S, "capacity after recovery");
		load.vertical(ConsumerGroupModel.OUTAGE_TO_MS / 1000.0, "recovery", true);
		int x = 70;
		int y = 405;
		for (Variant variant : results.keySet()) {
			chart.legend(x, y, COLORS[variant.ordinal()], variant.label());
			x += 300;
			if (x > 800) {
				x = 70;
				y += 20;
			}
		}
		return chart.end();
	}

}
