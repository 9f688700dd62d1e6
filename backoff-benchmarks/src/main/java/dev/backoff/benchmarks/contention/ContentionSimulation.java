package dev.backoff.benchmarks.contention;

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
import java.util.stream.IntStream;

import dev.backoff.benchmarks.contention.ContentionModel.Result;
import dev.backoff.benchmarks.contention.ContentionModel.Strategy;
import dev.backoff.benchmarks.simulation.Chart;
import dev.backoff.benchmarks.simulation.Chart.Axis;
import dev.backoff.benchmarks.simulation.Statistics;

/**
 * Runs {@link ContentionModel} for every strategy at 1 to 100 clients and writes the means and
 * medians as CSV and as a hand-written two-panel SVG chart (work, completion time).
 *
 * <p>Arguments, all optional: {@code runs} per point (default 1000), the CSV path (default
 * {@code docs/contention.csv}) and the SVG path (default {@code docs/contention.svg}).
 * Runs are seeded by strategy, clients and run number, so the output is reproducible.
 */
public final class ContentionSimulation {

	/** The points on the client axis. */
	static final int[] CLIENTS = { 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 };

	private static final String[] COLORS = { "#7f7f7f", "#d62728", "#1f77b4", "#2ca02c", "#9467bd" };

	private ContentionSimulation() {
	}

	/** One point: a strategy at a number of clients, summarised over its runs. */
	record Point(Strategy strategy, int clients, int runs, double workMean, double workMedian, double timeMeanMs,
			double timeMedianMs) {
	}

	public static void main(String[] args) throws IOException {
		int runs = (args.length > 0) ? Integer.parseInt(args[0]) : 1000;
		Path csv = Path.of((args.length > 1) ? args[1] : "docs/contention.csv");
		Path svg = Path.of((args.length > 2) ? args[2] : "docs/contention.svg");
		long started = System.nanoTime();
		Map<Strategy, List<Point>> points = new EnumMap<>(Strategy.class);
		for (Strategy strategy : Strategy.values()) {
			List<Point> curve = new ArrayList<>();
			for (int clients : CLIENTS) {
				curve.add(simulate(strategy, clients, runs));
			}
			points.put(strategy, curve);
		}
		double seconds = (System.nanoTime() - started) / 1e9;
		Files.createDirectories(csv.toAbsolutePath().getParent());
		Files.writeString(csv, csv(points), StandardCharsets.UTF_8);
		Files.createDirectories(svg.toAbsolutePath().getParent());
		Files.writeString(svg, svg(points, runs), StandardCharsets.UTF_8);
		System.out.println(table(points));
		System.out.printf(Locale.ROOT, "%d runs per point, %d points, %.1f s; wrote %s and %s%n", runs,
				CLIENTS.length * Strategy.values().length, seconds, csv, svg);
	}

	static Point simulate(Strategy strategy, int clients, int runs) {
		Result[] results = IntStream.range(0, runs)
			.parallel()
			.mapToObj((run) -> ContentionModel.run(strategy, clients, seed(strategy, clients, run)))
			.toArray(Result[]::new);
		double[] work = Arrays.stream(results).mapToDouble(Result::work).sorted().toArray();
		double[] time = Arrays.stream(results).mapToDouble(Result::timeMs).sorted().toArray();
		return new Point(strategy, clients, runs, Statistics.mean(work), Statistics.median(work), Statistics.mean(time),
				Statistics.median(time));
	}

	static long seed(Strategy strategy, int clients, int run) {
		return ((long) strategy.ordinal() << 48) ^ ((long) clients << 32) ^ run;
	}

	static String csv(Map<Strategy, List<Point>> points) {
		StringBuilder out = new StringBuilder(
				"strategy,clients,runs,work_mean,work_median,time_mean_ms,time_median_ms\n");
		points.forEach((strategy, curve) -> curve.forEach((p) -> out.append(String.format(Locale.ROOT,
				"%s,%d,%d,%.1f,%.1f,%.1f,%.1f%n", name(strategy), p.clients, p.runs, p.workMean, p.workMedian,
				p.timeMeanMs, p.timeMedianMs))));
		return out.toString();
	}

	static String table(Map<Strategy, List<Point>> points) {
		StringBuilder out = new StringBuilder(
				"| strategy | N | work (mean) | work (median) | time ms (mean) | time ms (median) |\n|---|---:|---:|---:|---:|---:|\n");
		for (int clients : new int[] { 10, 50, 100 }) {
			points.forEach((strategy, curve) -> curve.stream().filter((p) -> p.clients == clients).forEach(
					(p) -> out.append(String.format(Locale.ROOT, "| %s | %d | %.0f | %.0f | %.0f | %.0f |%n",
							name(strategy), p.clients, p.workMean, p.workMedian, p.timeMeanMs, p.timeMedianMs))));
		}
		return out.toString();
	}

	private static String name(Strategy strategy) {
		return (strategy == Strategy.NO_BACKOFF) ? "no-backoff" : strategy.name().toLowerCase(Locale.ROOT);
	}

	static String svg(Map<Strategy, List<Point>> points, int runs) {
		Chart chart = new Chart(1000, 440, String.format(Locale.ROOT,
				"Brooker's OCC contention, simulated: mean of %d runs per point (hops |N(10 ms, 2 ms)|, base 10 ms, x2, max 2 s)",
				runs));
		double maxWork = points.values().stream().flatMap(List::stream).mapToDouble(Point::workMean).max().orElse(1);
		double maxTime = points.values().stream().flatMap(List::stream).mapToDouble(Point::timeMeanMs).max().orElse(1);
		Axis clients = Axis.linear(100, 5, "%.0f", "clients");
		Chart.Panel work = chart.panel(60, 50, 380, 310, "Work: total writes (calls)", clients,
				Axis.linear(Chart.niceCeil(maxWork), 5, "%,.0f", ""));
		points.forEach(
				(strategy, curve) -> work.line(x(curve), y(curve, Point::workMean), COLORS[strategy.ordinal()]));
		Chart.Panel time = chart.panel(560, 50, 380, 310, "Completion time of the last client (ms, log scale)", clients,
				Axis.log(maxTime, "%,.0f", ""));
		points.forEach(
				(strategy, curve) -> time.line(x(curve), y(curve, Point::timeMeanMs), COLORS[strategy.ordinal()]));
		int x = 80;
		for (Strategy strategy : Strategy.values()) {
			chart.legend(x, 425, COLORS[strategy.ordinal()], name(strategy));
			x += 150;
		}
		return chart.end();
	}

	private static double[] x(List<Point> curve) {
		return curve.stream().mapToDouble(Point::clients).toArray();
	}

	private static double[] y(List<Point> curve, ToDoubleFunction<Point> value) {
		return curve.stream().mapToDouble(value).toArray();
	}

}
