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
import java.util.stream.IntStream;

import dev.backoff.benchmarks.contention.ContentionModel.Result;
import dev.backoff.benchmarks.contention.ContentionModel.Strategy;

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
		return new Point(strategy, clients, runs, mean(work), median(work), mean(time), median(time));
	}

	static long seed(Strategy strategy, int clients, int run) {
		return ((long) strategy.ordinal() << 48) ^ ((long) clients << 32) ^ run;
	}

	private static double mean(double[] values) {
		return Arrays.stream(values).average().orElse(Double.NaN);
	}

	private static double median(double[] sorted) {
		int n = sorted.length;
		return ((n & 1) == 1) ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
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
		int width = 1000;
		int height = 440;
		StringBuilder out = new StringBuilder();
		out.append(String.format(Locale.ROOT,
				"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n",
				width, height, width, height));
		out.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
		out.append(String.format(Locale.ROOT,
				"<text x=\"%d\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">Brooker's OCC contention, simulated: mean of %d runs per point (hops |N(10 ms, 2 ms)|, base 10 ms, x2, max 2 s)</text>%n",
				width / 2, runs));
		double maxWork = points.values().stream().flatMap(List::stream).mapToDouble(Point::workMean).max().orElse(1);
		double maxTime = points.values().stream().flatMap(List::stream).mapToDouble(Point::timeMeanMs).max().orElse(1);
		panel(out, points, 60, "Work: total writes (calls)", niceCeil(maxWork), false, Point::workMean);
		panel(out, points, 560, "Completion time of the last client (ms, log scale)", maxTime, true,
				Point::timeMeanMs);
		int x = 80;
		for (Strategy strategy : Strategy.values()) {
			out.append(String.format(Locale.ROOT,
					"<line x1=\"%d\" y1=\"425\" x2=\"%d\" y2=\"425\" stroke=\"%s\" stroke-width=\"2.5\"/><text x=\"%d\" y=\"429\">%s</text>%n",
					x, x + 24, COLORS[strategy.ordinal()], x + 30, name(strategy)));
			x += 150;
		}
		out.append("</svg>\n");
		return out.toString();
	}

	private static void panel(StringBuilder out, Map<Strategy, List<Point>> points, int left, String title, double max,
			boolean log, java.util.function.ToDoubleFunction<Point> value) {
		int plotWidth = 380;
		int top = 50;
		int plotHeight = 310;
		int bottom = top + plotHeight;
		double logMin = 1;
		double logMax = Math.ceil(Math.log10(max));
		java.util.function.DoubleUnaryOperator y = (v) -> {
			double fraction = log ? (Math.log10(Math.max(v, 10)) - logMin) / (logMax - logMin) : v / max;
			return bottom - fraction * plotHeight;
		};
		java.util.function.IntToDoubleFunction x = (clients) -> left + (clients / 100.0) * plotWidth;
		out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
				left + plotWidth / 2, top - 12, title));
		out.append(String.format(Locale.ROOT,
				"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>%n", left, top,
				plotWidth, plotHeight));
		List<Double> ticks = new ArrayList<>();
		if (log) {
			for (double exponent = logMin; exponent <= logMax; exponent++) {
				ticks.add(Math.pow(10, exponent));
			}
		}
		else {
			for (int i = 0; i <= 5; i++) {
				ticks.add(max * i / 5);
			}
		}
		for (double tick : ticks) {
			double ty = y.applyAsDouble(tick);
			out.append(String.format(Locale.ROOT,
					"<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
					left, ty, left + plotWidth, ty, left - 4, ty + 4, String.format(Locale.ROOT, "%,.0f", tick)));
		}
		for (int clients = 0; clients <= 100; clients += 20) {
			double tx = x.applyAsDouble(clients);
			out.append(String.format(Locale.ROOT,
					"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/><text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>%n",
					tx, bottom, tx, bottom + 4, tx, bottom + 17, clients));
		}
		out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">clients</text>%n",
				left + plotWidth / 2, bottom + 34));
		points.forEach((strategy, curve) -> {
			StringBuilder path = new StringBuilder();
			for (Point p : curve) {
				path.append(String.format(Locale.ROOT, "%s%.1f,%.1f", (path.length() == 0) ? "" : " ",
						x.applyAsDouble(p.clients), y.applyAsDouble(value.applyAsDouble(p))));
			}
			out.append(String.format(Locale.ROOT,
					"<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\"/>%n", path,
					COLORS[strategy.ordinal()]));
		});
	}

	private static double niceCeil(double value) {
		double magnitude = Math.pow(10, Math.floor(Math.log10(value)));
		for (double step : new double[] { 1, 2, 2.5, 5, 10 }) {
			if (step * magnitude >= value) {
				return step * magnitude;
			}
		}
		return 10 * magnitude;
	}

}
