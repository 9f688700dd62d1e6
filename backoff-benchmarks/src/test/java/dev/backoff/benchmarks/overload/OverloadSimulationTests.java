package dev.backoff.benchmarks.overload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.backoff.benchmarks.hedging.HedgingDrift.Row;
import dev.backoff.benchmarks.overload.OverloadModel.Kind;
import dev.backoff.benchmarks.overload.OverloadModel.Result;
import dev.backoff.benchmarks.overload.OverloadModel.Scenario;
import dev.backoff.benchmarks.overload.OverloadModel.Variant;
import dev.backoff.benchmarks.overload.OverloadSimulation.Report;
import dev.backoff.benchmarks.simulation.Runs;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Regenerates docs/overload-report.md and its charts in virtual time, checks that the checked-in
 * ones are the same, and checks the figures against issue 48's targets.
 */
class OverloadSimulationTests {

	/** Every scenario's runs, computed once for the tests that read them. */
	private static final Report REPORT = OverloadSimulation.report();

	private static final Path DOCS = Path.of("../docs");

	@Test
	void theCheckedInReportAndChartsAreTheOnesTheSimulationWrites() throws IOException {
		boolean same = sameContent(DOCS.resolve(Report.FILE), REPORT.markdown());
		for (Map.Entry<Scenario, Map<Variant, List<Result>>> entry : REPORT.results().entrySet()) {
			same &= sameContent(DOCS.resolve(OverloadSimulation.chartFile(entry.getKey())),
					OverloadSimulation.svg(entry.getKey(), entry.getValue()));
		}
		same &= sameContent(DOCS.resolve(OverloadSimulation.SLOWDOWN_CHART), OverloadSimulation.slowdownSvg(REPORT.hedging()));
		if (!same) {
			// Written for the developer to look at and commit; the test fails until they are.
			REPORT.write(DOCS);
		}
		assertThat(same).as("docs/overload-report.md or a chart was out of date: rewritten, commit them").isTrue();
	}

	@Test
	void theOverloadSafetyPageShowsTheReportsSummary() throws IOException {
		String page = Files.readString(DOCS.resolve("overload-safety.md"), StandardCharsets.UTF_8);
		assertThat(page).contains(
				OverloadSimulation.summary(REPORT.results()) + OverloadSimulation.slowdownSummary(REPORT.hedging()));
	}

	@Test
	void theOverloadSafetyPageReadsTheFiguresAsTheyAre() throws IOException {
		String page = Files.readString(DOCS.resolve("overload-safety.md"), StandardCharsets.UTF_8).replaceAll("\\s+", " ");
		List<Scenario> scenarios = List.copyOf(REPORT.results().keySet());
		assertThat(page).contains(String.format(Locale.ROOT, "%.0f %% fewer with 10 instances, %.0f %% with 100, %.0f %% after a halving",
				fewer(scenarios.get(0)), fewer(scenarios.get(1)), fewer(scenarios.get(3))));
		assertThat(page).contains(String.format(Locale.ROOT, "about %.0f attempts a second at the server instead of %.0f",
				Math.round(median(scenarios.get(0), Variant.BUDGET, (run) -> run.atServerPerSecond(scenarios.get(0))) / 10) * 10.0,
				Math.round(median(scenarios.get(0), Variant.PLAIN, (run) -> run.atServerPerSecond(scenarios.get(0))) / 10) * 10.0));
		assertThat(page).contains(String.format(Locale.ROOT, "(%.0f 429s a second instead of %.0f)",
				median(scenarios.get(0), Variant.ADMISSION, (run) -> run.throttledPerSecond(scenarios.get(0))),
				median(scenarios.get(0), Variant.PLAIN, (run) -> run.throttledPerSecond(scenarios.get(0)))));
		double[] goodputGaps = throttling().stream()
			.mapToDouble((scenario) -> 100 * (1 - median(scenario, Variant.ALL, (run) -> run.goodputPerSecond(scenario))
					/ median(scenario, Variant.PLAIN, (run) -> run.goodputPerSecond(scenario))))
			.toArray();
		assertThat(page).contains(String.format(Locale.ROOT, "The paced goodput is %.1f to %.1f %% below plain's",
				Arrays.stream(goodputGaps).min().orElseThrow(), Arrays.stream(goodputGaps).max().orElseThrow()));
		Scenario outage = scenario(Kind.OUTAGE);
		assertThat(page).contains(String.format(Locale.ROOT, "fall from %.2f to %.2f times the calls offered (%.2f with every control)",
				median(outage, Variant.PLAIN, (run) -> run.outageLoad(outage)),
				median(outage, Variant.ADMISSION, (run) -> run.outageLoad(outage)),
				median(outage, Variant.ALL, (run) -> run.outageLoad(outage))));
		assertThat(page).contains(String.format(Locale.ROOT, "back within %.0f s of its end (%.0f s for admission alone)",
				median(outage, Variant.ALL, (run) -> run.recoverSeconds(outage)),
				median(outage, Variant.ADMISSION, (run) -> run.recoverSeconds(outage))));
		assertThat(page).contains(String.format(Locale.ROOT,
				"The first second of the outage sends %.2f times the calls offered (%.2f with `ratio` 1.25;",
				firstSecondLoad(outage, Variant.ALL), firstSecondLoad(outage, Variant.ALL_RATIO_1_25)));
		assertThat(page).contains(String.format(Locale.ROOT, "every second after it, %.2f times", laterSecondsLoad(outage, Variant.ALL)));
		assertThat(page).contains(String.format(Locale.ROOT,
				"%.2f times the calls offered at the defaults, %.2f with `admission.ratio: 1.25`, which recovers in %.0f s instead of %.0f",
				median(outage, Variant.ALL, (run) -> run.outageLoad(outage)),
				median(outage, Variant.ALL_RATIO_1_25, (run) -> run.outageLoad(outage)),
				median(outage, Variant.ALL_RATIO_1_25, (run) -> run.recoverSeconds(outage)),
				median(outage, Variant.ALL, (run) -> run.recoverSeconds(outage))));
		assertThat(page).contains(String.format(Locale.ROOT, "reaches %.0f to %.0f %% of the server's rate",
				median(scenarios.get(0), Variant.AWS, (run) -> run.goodputPerSecond(scenarios.get(0))),
				median(scenarios.get(1), Variant.AWS, (run) -> run.goodputPerSecond(scenarios.get(1)))));
		List<Row> rows = REPORT.hedging();
		assertThat(page).contains(String.format(Locale.ROOT, "holds them to %.1f %% of the calls in every minute",
				100 * rows.get(2).worstMinute()));
		assertThat(page).contains(String.format(Locale.ROOT, "sent %.1f %% in the first minute (and a fixed one %.1f %%)",
				100 * rows.get(4).worstMinute(), 100 * rows.get(3).worstMinute()));
		assertThat(page).contains(String.format(Locale.ROOT, "(%.0f ms against %.1f s)", rows.get(2).later().p999Ms(),
				rows.get(0).before().p999Ms() / 1000));
		assertThat(page).contains(String.format(Locale.ROOT, "in the first minute it does not (%.1f s)",
				rows.get(2).firstMinute().p999Ms() / 1000));
	}

	private static double fewer(Scenario scenario) {
		return 100 * (1 - median(scenario, Variant.ALL, (run) -> run.throttledPerSecond(scenario))
				/ median(scenario, Variant.PLAIN, (run) -> run.throttledPerSecond(scenario)));
	}

	@Test
	void allTheControlsTogetherCutThe429sByAtLeastNinetyPercentAtTheSameGoodput() {
		for (Scenario scenario : throttling()) {
			double plain429s = median(scenario, Variant.PLAIN, (run) -> run.throttledPerSecond(scenario));
			double all429s = median(scenario, Variant.ALL, (run) -> run.throttledPerSecond(scenario));
			assertThat(all429s).as(scenario.name()).isLessThanOrEqualTo(0.1 * plain429s);
			// The plain policy keeps the server saturated, so its goodput is the server's capacity:
			// the controls come within 1 % of it (pacing leaves a slot unused now and then).
			double plainGoodput = median(scenario, Variant.PLAIN, (run) -> run.goodputPerSecond(scenario));
			double allGoodput = median(scenario, Variant.ALL, (run) -> run.goodputPerSecond(scenario));
			assertThat(allGoodput).as(scenario.name()).isGreaterThanOrEqualTo(0.99 * plainGoodput);
		}
	}

	@Test
	void aPacedClientGetsAtLeastNinetyFivePercentOfTheCapacityStably() {
		for (Scenario scenario : throttling()) {
			if (scenario.kind() == Kind.STEADY) {
				for (Variant variant : List.of(Variant.PACING, Variant.ALL)) {
					assertThat(median(scenario, variant, (run) -> run.goodputPerSecond(scenario)))
						.as(scenario.name() + ", " + variant.label()).isGreaterThanOrEqualTo(0.95 * scenario.capacity());
					// Stably: from second to second it varies by less than 3 % of the capacity.
					assertThat(median(scenario, variant, (run) -> run.goodputSpread(scenario)))
						.as(scenario.name() + ", " + variant.label()).isLessThan(0.03 * scenario.capacity());
				}
			}
		}
	}

	@Test
	void awsAdaptiveAsPublishedFallsFarBelowTheServersRate() {
		// What aws-sdk-java-v2 7197 fixed: "TPS much lower than server TPS, and unstable".
		for (Scenario scenario : throttling()) {
			if (scenario.kind() == Kind.STEADY) {
				assertThat(median(scenario, Variant.AWS, (run) -> run.goodputPerSecond(scenario)))
					.as(scenario.name()).isLessThan(0.7 * scenario.capacity());
				assertThat(median(scenario, Variant.AWS, (run) -> run.goodputSpread(scenario)))
					.as(scenario.name()).isGreaterThan(3 * median(scenario, Variant.PACING, (run) -> run.goodputSpread(scenario)));
			}
		}
	}

	@Test
	void duringTheOutageAdmissionsLastSecondStopsMostFirstAttemptsAndForgetsTheOutageWithinTwoSeconds() {
		Scenario outage = scenario(Kind.OUTAGE);
		assertThat(median(outage, Variant.PLAIN, (run) -> run.outageLoad(outage))).isGreaterThan(2.5);
		assertThat(median(outage, Variant.BUDGET, (run) -> run.outageLoad(outage))).isGreaterThan(1.0);
		// Issue 48 asks for at most 0.15 times the calls offered; not met (0.30): at 5 calls a second
		// per instance, the last second holds about 5 requests, so it rejects at most about 5 / 6.
		assertThat(median(outage, Variant.ADMISSION, (run) -> run.outageLoad(outage))).isLessThan(0.4);
		assertThat(median(outage, Variant.ALL, (run) -> run.outageLoad(outage))).isLessThan(0.35);
		for (Variant variant : List.of(Variant.ADMISSION, Variant.ALL)) {
			assertThat(median(outage, variant, (run) -> run.recoverSeconds(outage))).as(variant.label()).isLessThanOrEqualTo(2);
		}
	}

	@Test
	void aLowerAdmissionRatioRejectsSoonerInTheOutagesFirstSecondOnlyAndRecoversMoreSlowly() {
		Scenario outage = scenario(Kind.OUTAGE);
		double defaults = median(outage, Variant.ALL, (run) -> run.outageLoad(outage));
		double lower = median(outage, Variant.ALL_RATIO_1_25, (run) -> run.outageLoad(outage));
		// K only decides when rejecting starts; once the last second holds no accept, K multiplies zero.
		assertThat(lower).isLessThan(defaults).isGreaterThan(defaults - 0.05).isGreaterThan(0.15);
		assertThat(firstSecondLoad(outage, Variant.ALL_RATIO_1_25)).isLessThan(firstSecondLoad(outage, Variant.ALL));
		assertThat(median(outage, Variant.ALL_RATIO_1_25, (run) -> run.recoverSeconds(outage)))
			.isGreaterThan(median(outage, Variant.ALL, (run) -> run.recoverSeconds(outage)));
	}

	@Test
	void theLowerAdmissionRatioRunsInTheOutageOnly() {
		for (Map.Entry<Scenario, Map<Variant, List<Result>>> entry : REPORT.results().entrySet()) {
			assertThat(entry.getValue().containsKey(Variant.ALL_RATIO_1_25)).as(entry.getKey().name())
				.isEqualTo(entry.getKey().kind() == Kind.OUTAGE);
		}
	}

	/** @return the attempts at the server in the outage's first second, over the calls offered in it */
	private static double firstSecondLoad(Scenario outage, Variant variant) {
		return load(outage, variant, outage.eventAt(), outage.eventAt() + 1);
	}

	/** @return the attempts at the server in the outage's other seconds, over the calls offered in them */
	private static double laterSecondsLoad(Scenario outage, Variant variant) {
		return load(outage, variant, outage.eventAt() + 1, outage.eventAt() + outage.eventSeconds());
	}

	/** @return the attempts at the server over the calls offered in {@code [from, to)} seconds, the runs pooled */
	private static double load(Scenario outage, Variant variant, int from, int to) {
		double atServer = 0;
		double offered = 0;
		for (Result run : REPORT.results().get(outage).get(variant)) {
			for (int second = from; second < to; second++) {
				atServer += run.atServer()[second];
				offered += run.offered()[second];
			}
		}
		return atServer / offered;
	}

	@Test
	void inTheSlowdownTheCappedHedgesStayWithinFiveAndAHalfPercentInEveryMinute() {
		List<Row> rows = REPORT.hedging();
		Row none = rows.get(0);
		for (Row capped : rows.subList(1, 3)) {
			assertThat(capped.label()).doesNotContain("no cap");
			assertThat(capped.worstMinute()).as(capped.label()).isLessThanOrEqualTo(0.055);
			assertThat(capped.before().p999Ms()).as(capped.label()).isLessThanOrEqualTo(none.before().p999Ms() / 10);
		}
		// The learned delay keeps the tail ten times below no hedging's once its window holds the
		// slower answers; in the slowdown's first minute it does not (4.3 s, the report says why).
		Row learned = rows.get(2);
		assertThat(learned.label()).isEqualTo("hedge-percentile: 95");
		assertThat(learned.later().p999Ms()).isLessThanOrEqualTo(none.before().p999Ms() / 10);
		assertThat(learned.firstMinute().p999Ms()).isGreaterThan(none.before().p999Ms());
		// Without the cap, the same delay sent a copy for a sixth of the calls in that minute.
		assertThat(rows.get(4).worstMinute()).isGreaterThan(0.15);
	}

	@Test
	void sameSeedGivesSameRun() {
		Scenario scenario = scenario(Kind.HALVING);
		assertThat(OverloadModel.run(scenario, Variant.ALL, 1)).usingRecursiveComparison()
			.isEqualTo(REPORT.results().get(scenario).get(Variant.ALL).get(1));
		assertThat(REPORT.results().get(scenario).get(Variant.ALL).get(1)).usingRecursiveComparison()
			.isNotEqualTo(REPORT.results().get(scenario).get(Variant.ALL).get(0));
	}

	private static List<Scenario> throttling() {
		return REPORT.results().keySet().stream().filter((scenario) -> scenario.kind() != Kind.OUTAGE).toList();
	}

	private static Scenario scenario(Kind kind) {
		return REPORT.results().keySet().stream().filter((scenario) -> scenario.kind() == kind).findFirst().orElseThrow();
	}

	private static double median(Scenario scenario, Variant variant, java.util.function.ToDoubleFunction<Result> value) {
		return Runs.median(REPORT.results().get(scenario).get(variant), value);
	}

	private static boolean sameContent(Path path, String content) throws IOException {
		return Files.exists(path) && Files.readString(path, StandardCharsets.UTF_8).equals(content);
	}

}
