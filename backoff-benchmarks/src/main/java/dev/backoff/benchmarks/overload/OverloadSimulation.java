package dev.backoff.benchmarks.overload;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import dev.backoff.benchmarks.hedging.HedgingDrift.Row;
import dev.backoff.benchmarks.hedging.HedgingDrift;
import dev.backoff.benchmarks.hedging.HedgingModel;
import dev.backoff.benchmarks.overload.OverloadModel.Kind;
import dev.backoff.benchmarks.overload.OverloadModel.Result;
import dev.backoff.benchmarks.overload.OverloadModel.Scenario;
import dev.backoff.benchmarks.overload.OverloadModel.Variant;
import dev.backoff.benchmarks.simulation.Chart.Axis;
import dev.backoff.benchmarks.simulation.Chart;
import dev.backoff.benchmarks.simulation.Runs;
import dev.backoff.benchmarks.simulation.Statistics;

/**
 * Runs {@link OverloadModel}'s scenarios with every {@link Variant} and writes the report
 * (docs/overload-report.md: a table per scenario, medians over {@link #RUNS} seeded runs) and
 * a chart per scenario beside it. {@code OverloadSimulationTests} regenerates both and checks
 * the targets; run this to write them after a change.
 *
 * <p>Argument, optional: the folder to write to (default {@code docs}).
 */
public final class OverloadSimulation {

	/** The runs per scenario and variant; run {@code n} uses seed {@code n}. */
	static final int RUNS = 3;

	/** The scenarios of the report, in its order. */
	static final List<Scenario> SCENARIOS = List.of(
			new Scenario("steady-10", "A server allowing 100 attempts a second, offered 200 calls a second by 10 client instances",
					Kind.STEADY, 10, 100, 200, 120, 0, 0),
			new Scenario("steady-100", "The same offered by 100 client instances", Kind.STEADY, 100, 100, 200, 120, 0, 0),
			new Scenario("outage", "A server allowing 100 a second, offered 50 by 10 instances, down (503) for 10 s from 60 s",
					Kind.OUTAGE, 10, 100, 50, 120, 60, 10),
			new Scenario("halving", "A server allowing 100 a second, then 50 from 60 s, offered 80 by 10 instances",
					Kind.HALVING, 10, 100, 80, 150, 60, 0));

	private static final String[] COLORS = { "#d62728", "#ff7f0e", "#1f77b4", "#2ca02c", "#9467bd", "#7f7f7f" };

	private OverloadSimulation() {
	}

	public static void main(String[] args) throws IOException {
		Path folder = Path.of((args.length > 0) ? args[0] : "docs");
		long started = System.nanoTime();
		Report report = report();
		double seconds = (System.nanoTime() - started) / 1e9;
		report.write(folder);
		System.out.println(report.markdown());
		System.out.printf(Locale.ROOT, "%.1f s; wrote %s%n", seconds, folder.resolve(Report.FILE));
	}

	/** @return every scenario's runs, their tables and charts */
	static Report report() {
		Map<Scenario, Map<Variant, List<Result>>> results = new LinkedHashMap<>();
		for (Scenario scenario : SCENARIOS) {
			results.put(scenario, Runs.simulate(Variant.class, variants(scenario), RUNS,
					(variant, seed) -> OverloadModel.run(scenario, variant, seed)));
		}
		HedgingModel.Scenario slowdown = HedgingDrift.scenario(HedgingDrift.CALLS);
		return new Report(results, slowdown, HedgingDrift.run(slowdown));
	}

	/** @return the variants run in a scenario: every one, but a lower admission ratio only in the outage */
	static List<Variant> variants(Scenario scenario) {
		return Arrays.stream(Variant.values())
			.filter((variant) -> variant != Variant.ALL_RATIO_1_25 || scenario.kind() == Kind.OUTAGE)
			.toList();
	}

	/**
	 * The report: the runs and what is written of them.
	 * @param results the throttling and outage scenarios' runs
	 * @param slowdown the threefold slowdown with hedging ({@link HedgingDrift}'s, the same service and calls)
	 * @param hedging its one run per hedging policy
	 */
	record Report(Map<Scenario, Map<Variant, List<Result>>> results, HedgingModel.Scenario slowdown, List<Row> hedging) {

		static final String FILE = "overload-report.md";

		String markdown() {
			StringBuilder out = new StringBuilder();
			out.append("# Overload simulation\n\n");
			out.append("Written by `OverloadSimulation` (backoff-benchmarks) and checked by `OverloadSimulationTests`, "
					+ "which regenerates it in virtual time: do not edit by hand.\n\n");
			out.append(METHOD);
			out.append("\n## Summary\n\n").append(summary(this.results)).append(slowdownSummary(this.hedging));
			out.append("\n## Issue 48's targets\n\n").append(targets(this.results, this.hedging));
			for (Map.Entry<Scenario, Map<Variant, List<Result>>> entry : this.results.entrySet()) {
				out.append('\n').append(table(entry.getKey(), entry.getValue()));
			}
			out.append('\n').append(SLOWDOWN).append("\n![slowdown](").append(SLOWDOWN_CHART).append(")\n\n")
				.append(HedgingDrift.table(this.slowdown, this.hedging));
			return out.toString();
		}

		void write(Path folder) throws IOException {
			Runs.write(folder.resolve(FILE), markdown());
			for (Map.Entry<Scenario, Map<Variant, List<Result>>> entry : this.results.entrySet()) {
				Runs.write(folder.resolve(chartFile(entry.getKey())), svg(entry.getKey(), entry.getValue()));
			}
			Runs.write(folder.resolve(SLOWDOWN_CHART), slowdownSvg(this.hedging));
		}

	}

	/** What the model is and what the columns mean, for the report's readers. */
	static final String METHOD = """
			Client instances call one server through Backoff's real classes (`BackoffCall` of a `BackoffExecutor` on a \
			virtual clock, `RetryBudget`, `Admission`, `Pacing`), each instance with its own budget, admission and pace. \
			Calls arrive as a Poisson process at a random instance; every policy makes 3 attempts at most, waits \
			Full Jitter from 100 ms, and gives up after 2 s (max-elapsed; a paced attempt whose slot would come later \
			gives up unsent). An attempt crosses a network of |Normal(10 ms, 2 ms)| each way; the server is a token \
			bucket of its capacity per second holding 0.1 s of it, answers 429 above it at once, and takes 10 ms over \
			an attempt it accepts. The budget is Backoff's default (10 tokens, 0.1 back a success), admission the \
			SRE book's (K 2, a two-minute window and the last second, at most 0.9 rejected), each attempt admitted, then paced, then \
			sent. "AWS adaptive (pre-fix)" is the plain policy with aws-sdk-java-v2's \
			`RateLimiterTokenBucket` as published before its July 2026 fix (7197), modelled in `AwsAdaptive`. \
			Medians of %d seeded runs. *goodput*: calls that succeeded per second; *p50*, *p99*: latency of the calls \
			that succeeded; *± per second*: the standard deviation of the goodput from second to second; \
			*attempts at the server*: everything the server had to answer; *time to recover*: from \
			the start, the outage's end or the halving, until the goodput stays at least 90 %% of what the server \
			can serve and the 429s at most 20 %% of its capacity for 10 s.
			""".formatted(RUNS);

	/** @return the summary table: the plain policy against all the controls and AWS's pace, per scenario */
	static String summary(Map<Scenario, Map<Variant, List<Result>>> results) {
		StringBuilder out = new StringBuilder();
		out.append("| scenario | 429s/s: plain | all of them | attempts at the server/s: plain | all of them "
				+ "| goodput/s: plain | all of them | AWS adaptive (pre-fix) | p99: plain | all of them |\n");
		out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		String outage = "";
		for (Map.Entry<Scenario, Map<Variant, List<Result>>> entry : results.entrySet()) {
			Scenario scenario = entry.getKey();
			List<Result> plain = entry.getValue().get(Variant.PLAIN);
			List<Result> all = entry.getValue().get(Variant.ALL);
			List<Result> aws = entry.getValue().get(Variant.AWS);
			out.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f ms | %.0f ms |%n",
					scenario.name(), Runs.median(plain, (run) -> run.throttledPerSecond(scenario)),
					Runs.median(all, (run) -> run.throttledPerSecond(scenario)),
					Runs.median(plain, (run) -> run.atServerPerSecond(scenario)),
					Runs.median(all, (run) -> run.atServerPerSecond(scenario)),
					Runs.median(plain, (run) -> run.goodputPerSecond(scenario)),
					Runs.median(all, (run) -> run.goodputPerSecond(scenario)),
					Runs.median(aws, (run) -> run.goodputPerSecond(scenario)), Runs.median(plain, Result::p99Ms),
					Runs.median(all, Result::p99Ms)));
			if (scenario.kind() == Kind.OUTAGE) {
				outage = String.format(Locale.ROOT,
						"%nDuring the %d s outage, the attempts reaching the server were %.2f times the calls offered "
								+ "with the plain policy, %.2f with all the controls.%n",
						scenario.eventSeconds(), Runs.median(plain, (run) -> run.outageLoad(scenario)),
						Runs.median(all, (run) -> run.outageLoad(scenario)));
			}
		}
		return out.append(outage).toString();
	}

	/** @return each of issue 48's targets with the figures measured against it, and whether they meet it */
	static String targets(Map<Scenario, Map<Variant, List<Result>>> results, List<Row> hedging) {
		StringBuilder out = new StringBuilder("| target | measured | met |\n|---|---|---|\n");
		for (Map.Entry<Scenario, Map<Variant, List<Result>>> entry : results.entrySet()) {
			Scenario scenario = entry.getKey();
			List<Result> plain = entry.getValue().get(Variant.PLAIN);
			List<Result> all = entry.getValue().get(Variant.ALL);
			if (scenario.kind() == Kind.OUTAGE) {
				double load = Runs.median(all, (run) -> run.outageLoad(scenario));
				double lower = Runs.median(entry.getValue().get(Variant.ALL_RATIO_1_25), (run) -> run.outageLoad(scenario));
				out.append(String.format(Locale.ROOT, "| %s: attempts at the server during the outage ≤ 0.15× the calls "
						+ "offered | %.2f× with all the controls at the defaults, %.2f× with `admission.ratio: 1.25` (at %.0f "
						+ "calls a second per instance no ratio, horizon or max-rejection of the formula reaches 0.15×: see "
						+ "[overload-safety.md](overload-safety.md#how-far-admission-cuts-an-outage)) | %s |%n", scenario.name(),
						load, lower, scenario.offered() / scenario.clients(), (Math.min(load, lower) <= 0.15) ? "yes" : "**no**"));
				continue;
			}
			double fewer = 1 - Runs.median(all, (run) -> run.throttledPerSecond(scenario))
					/ Runs.median(plain, (run) -> run.throttledPerSecond(scenario));
			double goodput = Runs.median(all, (run) -> run.goodputPerSecond(scenario))
					/ Runs.median(plain, (run) -> run.goodputPerSecond(scenario));
			out.append(String.format(Locale.ROOT, "| %s: ≥ 90 %% fewer 429s than plain backoff at equal or better goodput "
					+ "| %.1f %% fewer, goodput %+.1f %% | %s |%n", scenario.name(), 100 * fewer, 100 * (goodput - 1),
					(fewer >= 0.9 && goodput >= 1) ? "yes"
							: (fewer >= 0.9 && goodput >= 0.99) ? "fewer: yes; goodput: within 1 %, not equal" : "**no**"));
			if (scenario.kind() == Kind.STEADY) {
				double paced = Math.min(Runs.median(entry.getValue().get(Variant.PACING), (run) -> run.goodputPerSecond(scenario)),
						Runs.median(all, (run) -> run.goodputPerSecond(scenario))) / scenario.capacity();
				out.append(String.format(Locale.ROOT, "| %s: goodput ≥ 0.95× capacity once paced | %.3f× (the lower of "
						+ "pacing and all) | %s |%n", scenario.name(), paced, (paced >= 0.95) ? "yes" : "**no**"));
			}
		}
		Row none = hedging.get(0);
		double worst = Math.max(hedging.get(1).worstMinute(), hedging.get(2).worstMinute());
		out.append(String.format(Locale.ROOT, "| slowdown: hedges ≤ 5.5 %% extra in every minute (with the cap) | at most "
				+ "%.1f %% | %s |%n", 100 * worst, (worst <= 0.055) ? "yes" : "**no**"));
		Row learned = hedging.get(2);
		double ten = none.before().p999Ms() / 10;
		out.append(String.format(Locale.ROOT, "| slowdown: p99.9 ≥ 10× below no hedging's before it (%.0f ms), with "
				+ "`hedge-percentile: 95` and the cap | %.0f ms before, %.0f ms in the first minute after, %.0f ms later | %s |%n",
				none.before().p999Ms(), learned.before().p999Ms(), learned.firstMinute().p999Ms(), learned.later().p999Ms(),
				(learned.before().p999Ms() <= ten && learned.firstMinute().p999Ms() <= ten && learned.later().p999Ms() <= ten)
						? "yes" : "before and later: yes; **first minute: no**"));
		return out.toString();
	}

	/** The slowdown's chart file. */
	static final String SLOWDOWN_CHART = "overload-slowdown.svg";

	/** The slowdown section's heading and text. */
	static final String SLOWDOWN = """
			## slowdown

			A service answering around 10 ms (1 % of answers 100 times slower), called 1,000 times a second, every \
			answer three times slower from the middle call on (100 s in): `HedgingDrift`'s run through \
			`HedgingModel` (Backoff's real non-blocking executor), without hedging, with a fixed hedge delay (the \
			service's p95 before the slowdown) and with `hedge-percentile: 95`, each with the default cap on hedges \
			(`hedge-max-extra-load: 0.05`) and without it. One seeded run; "most in any minute" is the worst of \
			every 60 s of calls after the slowdown, a second apart. The chart shows the extra requests and the \
			p99.9 per 10 s of calls.
			""";

	/** @return the slowdown's line in the summary: the learned delay with the cap against no hedging */
	static String slowdownSummary(List<Row> rows) {
		Row none = rows.get(0);
		Row learned = rows.get(2);
		return String.format(Locale.ROOT, "%nIn the threefold slowdown, `hedge-percentile: 95` with the cap sent at most "
				+ "%.1f %% extra requests in any minute after it (%.1f %% without the cap); its p99.9 was %.0f ms before "
				+ "the slowdown, %.0f ms in its first minute and %.0f ms after, against %.0f ms without hedging before it.%n",
				100 * learned.worstMinute(), 100 * rows.get(4).worstMinute(), learned.before().p999Ms(),
				learned.firstMinute().p999Ms(), learned.later().p999Ms(), none.before().p999Ms());
	}

	/** @return a two-panel chart of the slowdown: extra requests per second and p99.9 per 10 s, per policy */
	static String slowdownSvg(List<Row> rows) {
		int calls = rows.get(0).trace().latencyMs().length;
		int seconds = calls / 1000;
		Chart chart = new Chart(1000, 490, "slowdown: every answer 3 times slower from 100 s, hedges with and without the cap");
		Axis time = Axis.linear(seconds, 4, "%.0f", "seconds (1,000 calls each)");
		Chart.Panel extra = chart.panel(70, 50, 380, 310, "Extra requests, % of calls", time,
				Axis.linear(100, 5, "%.0f", ""));
		Chart.Panel tail = chart.panel(570, 50, 380, 310, "p99.9 per 10 s, ms", time,
				Axis.log(10, 10_000, "%.0f", ""));
		int color = 0;
		for (Row row : rows) {
			double[] copies = row.trace().copyMs();
			double[] at = new double[seconds];
			double[] share = new double[seconds];
			for (int second = 0; second < seconds; second++) {
				int sent = 0;
				for (int i = second * 1000 * HedgingModel.TRACED_COPIES; i < (second + 1) * 1000 * HedgingModel.TRACED_COPIES; i++) {
					sent += Double.isNaN(copies[i]) ? 0 : 1;
				}
				at[second] = second + 0.5;
				share[second] = 100.0 * sent / 1000 - 100;
			}
			double[] windows = new double[seconds / 10];
			double[] p999 = new double[seconds / 10];
			for (int w = 0; w < windows.length; w++) {
				windows[w] = w * 10 + 5;
				p999[w] = Statistics.quantile(Arrays.copyOfRange(row.trace().latencyMs(), w * 10_000, (w + 1) * 10_000), 0.999);
			}
			extra.line(at, share, COLORS[color]);
			tail.line(windows, p999, COLORS[color]);
			chart.legend(70 + (color % 3) * 300, 420 + (color / 3) * 20, COLORS[color], row.label());
			color++;
		}
		for (Chart.Panel panel : new Chart.Panel[] { extra, tail }) {
			panel.vertical(seconds / 2.0, "3× slower", false);
		}
		return chart.end();
	}

	static String chartFile(Scenario scenario) {
		return "overload-" + scenario.name() + ".svg";
	}

	/** @return the scenario's section: its title, chart and table of medians */
	static String table(Scenario scenario, Map<Variant, List<Result>> results) {
		StringBuilder out = new StringBuilder();
		out.append("## ").append(scenario.name()).append("\n\n").append(scenario.title()).append(". ");
		out.append((scenario.kind() == Kind.STEADY)
				? String.format(Locale.ROOT, "Figures over the second half (%d to %d s), once paced.%n%n",
						scenario.measureFrom(), scenario.seconds())
				: String.format(Locale.ROOT, "Figures over the whole run (%d s).%n%n", scenario.seconds()));
		out.append("![").append(scenario.name()).append("](").append(chartFile(scenario)).append(")\n\n");
		boolean outage = scenario.kind() == Kind.OUTAGE;
		out.append("| client | 429s/s | goodput/s | ± per second | p50 | p99 | attempts at the server/s | time to recover |")
			.append(outage ? " at the server during the outage |\n" : "\n");
		out.append("|---|---:|---:|---:|---:|---:|---:|---:|").append(outage ? "---:|\n" : "\n");
		for (Map.Entry<Variant, List<Result>> entry : results.entrySet()) {
			List<Result> runs = entry.getValue();
			double recover = Runs.median(runs, (run) -> run.recoverSeconds(scenario));
			boolean never = runs.stream().filter((run) -> Double.isNaN(run.recoverSeconds(scenario))).count() * 2 > runs.size();
			out.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.0f ms | %.0f ms | %.1f | %s |",
					entry.getKey().label(), Runs.median(runs, (run) -> run.throttledPerSecond(scenario)),
					Runs.median(runs, (run) -> run.goodputPerSecond(scenario)),
					Runs.median(runs, (run) -> run.goodputSpread(scenario)), Runs.median(runs, Result::p50Ms),
					Runs.median(runs, Result::p99Ms), Runs.median(runs, (run) -> run.atServerPerSecond(scenario)),
					never ? "never" : String.format(Locale.ROOT, "%.0f s", recover)));
			if (outage) {
				out.append(String.format(Locale.ROOT, " %.2f× offered |", Runs.median(runs, (run) -> run.outageLoad(scenario))));
			}
			out.append('\n');
		}
		return out.toString();
	}

	/** @return a two-panel chart: the goodput and the 429s per second, each variant's mean over its runs */
	static String svg(Scenario scenario, Map<Variant, List<Result>> results) {
		Chart chart = new Chart(1000, 470, scenario.name() + ": " + scenario.title());
		double[] seconds = new double[scenario.seconds()];
		for (int i = 0; i < seconds.length; i++) {
			seconds[i] = i + 0.5;
		}
		Axis time = Axis.linear(scenario.seconds(), 6, "%.0f", "seconds");
		double maxRate = Chart.niceCeil(Math.max(scenario.capacity(), scenario.offered()) * 1.2);
		Chart.Panel goodput = chart.panel(70, 50, 380, 310, "Calls that succeeded per second", time,
				Axis.linear(maxRate, 5, "%.0f", ""));
		double maxThrottled = 1;
		for (List<Result> runs : results.values()) {
			for (int second = 0; second < seconds.length; second++) {
				maxThrottled = Math.max(maxThrottled, mean(runs, second, Result::throttled));
			}
		}
		Chart.Panel throttled = chart.panel(570, 50, 380, 310, "429s per second", time,
				Axis.linear(Chart.niceCeil(maxThrottled), 5, "%.0f", ""));
		int color = 0;
		for (Map.Entry<Variant, List<Result>> entry : results.entrySet()) {
			if (entry.getKey() == Variant.ALL_RATIO_1_25) {
				// Its line would lie on all of them's: the table says what it changes.
				continue;
			}
			double[] good = new double[seconds.length];
			double[] thr = new double[seconds.length];
			for (int second = 0; second < seconds.length; second++) {
				good[second] = mean(entry.getValue(), second, Result::goodput);
				thr[second] = mean(entry.getValue(), second, Result::throttled);
			}
			goodput.line(seconds, good, COLORS[color]);
			throttled.line(seconds, thr, COLORS[color]);
			chart.legend(70 + (color % 3) * 300, 420 + (color / 3) * 20, COLORS[color], entry.getKey().label());
			color++;
		}
		if (scenario.kind() != Kind.STEADY) {
			for (Chart.Panel panel : new Chart.Panel[] { goodput, throttled }) {
				panel.vertical(scenario.eventAt(), (scenario.kind() == Kind.OUTAGE) ? "outage" : "halved", false);
			}
		}
		return chart.end();
	}

	private static double mean(List<Result> runs, int second, Function<Result, int[]> series) {
		double sum = 0;
		for (Result run : runs) {
			sum += series.apply(run)[second];
		}
		return sum / runs.size();
	}

}
