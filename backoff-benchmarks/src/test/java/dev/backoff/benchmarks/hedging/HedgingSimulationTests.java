package dev.backoff.benchmarks.hedging;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import dev.backoff.HedgeTokens;
import dev.backoff.RetryBudget;
import dev.backoff.benchmarks.hedging.HedgingModel.Result;
import dev.backoff.benchmarks.hedging.HedgingModel.Scenario;
import dev.backoff.benchmarks.hedging.HedgingModel.Trace;
import dev.backoff.benchmarks.simulation.Runs;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class HedgingSimulationTests {

	private static final Scenario SCENARIO = Scenario.defaults();

	/** The runs of the table in docs/benchmarks.md, computed once for the tests that read them. */
	private static final Map<Variant, List<Result>> DOCS_RESULTS = HedgingSimulation.simulate(SCENARIO,
			HedgingSimulation.DOCS_RUNS);

	/**
	 * The runs whose every call a test replays: fewer calls than the docs', as replaying is per
	 * call, and no cap on hedges, so that every hedge that is due is sent (the cap's own test
	 * reads the docs' runs).
	 */
	private static final Scenario TRACED = SCENARIO.withCalls(10_000).withHedgeMaxExtraLoad(0);

	/** Within rounding to the nanosecond of the virtual clock. */
	private static final double NANOSECOND_MS = 1e-5;

	@Test
	void theDocsShowTheTableTheSimulationPrints() throws IOException {
		// Seeded: the docs' medians of DOCS_RUNS runs come out the same on every machine.
		String docs = Files.readString(Path.of("../docs/benchmarks.md"), StandardCharsets.UTF_8);
		assertThat(docs).contains(HedgingSimulation.table(SCENARIO, DOCS_RESULTS));
	}

	@Test
	void sameSeedGivesSameRun() {
		for (Variant variant : Variant.values()) {
			assertSameRun(HedgingModel.trace(TRACED, variant, 3, null), HedgingModel.trace(TRACED, variant, 3, null));
		}
		assertThat(DOCS_RESULTS.get(Variant.NONE).get(1)).usingRecursiveComparison()
			.isNotEqualTo(DOCS_RESULTS.get(Variant.NONE).get(0));
	}

	@Test
	void theDelaysAreTheServicesPercentiles() {
		HeavyTailService service = SCENARIO.service();
		assertThat(service.slowerThan(service.quantileMs(0.95))).isCloseTo(0.05, within(1e-9));
		assertThat(Variant.HEDGE_P95.delay(SCENARIO).toMillis()).isEqualTo(24);
		assertThat(Variant.HEDGE_P99.delay(SCENARIO).toMillis()).isEqualTo(127);
		// Against the draws themselves: the share of answers slower than each delay.
		SplittableRandom random = new SplittableRandom(11);
		double[] draws = new double[400_000];
		Arrays.setAll(draws, (i) -> service.draw(random));
		assertThat(shareAbove(draws, 24)).isCloseTo(0.05, within(0.001));
		assertThat(shareAbove(draws, 127)).isCloseTo(0.01, within(0.0005));
		assertThat(shareAbove(draws, 500)).isCloseTo(0.0093, within(0.0005));
	}

	@Test
	void withoutHedgingEachCallTakesItsOneAnswerAndTheP999IsTheSlowAnswersLatency() {
		Trace trace = HedgingModel.trace(TRACED, Variant.NONE, 0, null);
		for (int call = 0; call < TRACED.calls(); call++) {
			assertThat(trace.latencyMs()[call]).isCloseTo(copy(trace, call, 0), within(NANOSECOND_MS));
		}
		assertThat(trace.result().requests()).isEqualTo(TRACED.calls());
		// The p99.9 is the 90th percentile of the 1 % of answers that are slow, about 1.9 s.
		double slowP90 = SCENARIO.service().slowQuantileMs(0.9);
		assertThat(slowP90).isCloseTo(1898, within(1.0));
		for (Result run : DOCS_RESULTS.get(Variant.NONE)) {
			assertThat(run.p999Ms()).isCloseTo(slowP90, within(0.1 * slowP90));
		}
	}

	@Test
	void withHedgingNoCallWaitsLongerThanTheHedgeDelayPlusTheFastestCopySent() {
		for (Variant variant : new Variant[] { Variant.HEDGE_P95, Variant.HEDGE_P95_TWICE, Variant.HEDGE_P99,
				Variant.HEDGE_P99_TWICE }) {
			Trace trace = HedgingModel.trace(TRACED, variant, 0, null);
			double delay = variant.delay(SCENARIO).toNanos() / 1e6;
			long requests = 0;
			for (int call = 0; call < TRACED.calls(); call++) {
				// Copy k is sent at k delays, unless an earlier one answered first; the first answer wins.
				double answer = copy(trace, call, 0);
				int sent = 1;
				while (sent <= variant.maxHedges() && answer > sent * delay) {
					answer = Math.min(answer, sent * delay + copy(trace, call, sent));
					sent++;
				}
				assertThat(trace.latencyMs()[call]).as("%s, call %d", variant.label(), call)
					.isCloseTo(answer, within(NANOSECOND_MS));
				assertThat(sent(trace, call)).as("%s, call %d", variant.label(), call).isEqualTo(sent);
				if (sent > 1) {
					assertThat(trace.latencyMs()[call]).isLessThanOrEqualTo(delay + copy(trace, call, 1) + NANOSECOND_MS);
				}
				requests += sent;
			}
			Result result = trace.result();
			assertThat(result.requests()).isEqualTo(requests);
			assertThat(result.hedgesSent()).isEqualTo(requests - TRACED.calls());
			assertThat(result.failed()).isZero();
		}
	}

	@Test
	void extraRequestsWithOneHedgeAreTheShareOfCallsSlowerThanTheHedgeDelay() {
		for (long seed = 0; seed < 3; seed++) {
			double[] unhedged = HedgingModel.trace(TRACED, Variant.NONE, seed, null).latencyMs();
			for (Variant variant : new Variant[] { Variant.HEDGE_P95, Variant.HEDGE_P99 }) {
				Result hedged = HedgingModel.trace(TRACED, variant, seed, null).result();
				double slower = shareAbove(unhedged, variant.delay(SCENARIO).toMillis());
				assertThat(hedged.extraRequests()).as(variant.label()).isCloseTo(slower, within(1e-12));
			}
		}
	}

	@Test
	void theRetryOnlyVariantsRequestsIncludeTheCutOffAttempts() {
		for (Variant variant : new Variant[] { Variant.RETRY_P95, Variant.RETRY_P99 }) {
			Trace trace = HedgingModel.trace(TRACED, variant, 0, null);
			double timeout = variant.delay(SCENARIO).toNanos() / 1e6;
			long requests = 0;
			long failed = 0;
			for (int call = 0; call < TRACED.calls(); call++) {
				// Each attempt slower than the timeout is cut off there and retried at once.
				int attempts = 1;
				while (attempts < SCENARIO.maxAttempts() && copy(trace, call, attempts - 1) > timeout) {
					attempts++;
				}
				double last = copy(trace, call, attempts - 1);
				double latency = (last > timeout) ? Double.POSITIVE_INFINITY : (attempts - 1) * timeout + last;
				failed += (last > timeout) ? 1 : 0;
				assertThat(trace.latencyMs()[call]).as("%s, call %d", variant.label(), call)
					.isCloseTo(latency, within(NANOSECOND_MS));
				assertThat(sent(trace, call)).as("%s, call %d", variant.label(), call).isEqualTo(attempts);
				requests += attempts;
			}
			Result result = trace.result();
			assertThat(result.requests()).isEqualTo(requests).isEqualTo(TRACED.calls() + result.retries());
			assertThat(result.failed()).isEqualTo(failed);
			assertThat(result.hedgesSent()).isZero();
		}
		assertThat(DOCS_RESULTS.get(Variant.RETRY_P95)).allSatisfy((run) -> assertThat(run.failed()).isPositive());
	}

	@Test
	void aRetryBudgetChangesNothingForHedgingWhenNoCopyFailsButCutsTheRetriesAfterABurstOfTimeouts() {
		// Hedges are sent while the budget allows retries but spend no token (as gRPC's): only failures do.
		for (Variant variant : new Variant[] { Variant.HEDGE_P95, Variant.HEDGE_P95_TWICE, Variant.HEDGE_P99 }) {
			RetryBudget budget = RetryBudget.defaults();
			assertSameRun(HedgingModel.trace(TRACED, variant, 0, budget), HedgingModel.trace(TRACED, variant, 0, null));
			assertThat(budget.getTokens()).isEqualTo(budget.getMaxTokens());
		}
		// Each attempt cut off costs a token; a few in a row empty the budget, and calls go without a retry.
		Result without = HedgingModel.trace(TRACED, Variant.RETRY_P95, 0, null).result();
		Result with = HedgingModel.trace(TRACED, Variant.RETRY_P95, 0, RetryBudget.defaults()).result();
		assertThat(with.failed()).isGreaterThan(without.failed());
		assertThat(with.retries()).isLessThan(without.retries());
	}

	@Test
	void theDocsDataAndChartAreWhatTheSimulationWrites() throws IOException {
		assertThat(Path.of("../docs/hedging.csv")).hasContent(HedgingSimulation.curvesCsv(DOCS_RESULTS));
		assertThat(Path.of("../docs/hedging-runs.csv")).hasContent(HedgingSimulation.runsCsv(DOCS_RESULTS));
		assertThat(Path.of("../docs/hedging.svg")).hasContent(HedgingSimulation.svg(SCENARIO, DOCS_RESULTS));
		// The sample p99 without hedging falls anywhere in the gap between fast and slow answers.
		assertThat(DOCS_RESULTS.get(Variant.NONE)).extracting(Result::p99Ms)
			.anySatisfy((p99) -> assertThat(p99).isLessThan(50))
			.anySatisfy((p99) -> assertThat(p99).isGreaterThan(400));
	}

	@Test
	void hedgingAtP99MeetsTheIssuesTargetInEveryRunAndAtP95OnlyInTheMedian() {
		// Issue 41: p99.9 at least 10 times lower for at most 5 % extra requests.
		for (int seed = 0; seed < HedgingSimulation.DOCS_RUNS; seed++) {
			double unhedged = DOCS_RESULTS.get(Variant.NONE).get(seed).p999Ms();
			Result p99 = DOCS_RESULTS.get(Variant.HEDGE_P99).get(seed);
			assertThat(p99.p999Ms() * 10).isLessThan(unhedged);
			assertThat(p99.extraRequests()).isLessThanOrEqualTo(0.011);
			Result p95 = DOCS_RESULTS.get(Variant.HEDGE_P95).get(seed);
			assertThat(p95.p999Ms() * 30).isLessThan(unhedged);
			// A hedge for each call slower than the p95, 5 % of them, a little more or less per run,
			// as far as the cap allows: a few hundred are held back when they come close together.
			assertThat(p95.extraRequests()).isBetween(0.046, 0.05);
		}
		assertThat(Runs.median(DOCS_RESULTS.get(Variant.HEDGE_P95), Result::extraRequests)).isLessThan(0.05);
	}

	@Test
	void theCapHoldsEveryRunsHedgesWithinItsShareOfTheCallsAndTheBurst() {
		for (Variant variant : new Variant[] { Variant.HEDGE_P95, Variant.HEDGE_P95_TWICE, Variant.HEDGE_P99,
				Variant.HEDGE_P99_TWICE }) {
			for (Result run : DOCS_RESULTS.get(variant)) {
				assertThat(run.hedgesSent()).as(variant.label())
					.isLessThanOrEqualTo(HedgeTokens.BURST + (long) (run.calls() * SCENARIO.hedgeMaxExtraLoad()));
				// At the p95 the hedges due come to about the share itself: some are held back. At the
				// p99, a fifth of it: none.
				if (variant.delay(SCENARIO).toMillis() == 24) {
					assertThat(run.hedgesHeldBack()).as(variant.label()).isPositive();
				}
				else {
					assertThat(run.hedgesHeldBack()).as(variant.label()).isZero();
				}
			}
		}
		// Without the cap, the same runs send every hedge that is due.
		Scenario uncapped = TRACED.withCalls(SCENARIO.calls());
		Result without = HedgingModel.run(uncapped, Variant.HEDGE_P95, 0);
		Result with = DOCS_RESULTS.get(Variant.HEDGE_P95).get(0);
		assertThat(without.hedgesHeldBack()).isZero();
		assertThat(without.hedgesSent()).isEqualTo(with.hedgesSent() + with.hedgesHeldBack());
	}

	@Test
	void simulationWritesCsvAndSvg() {
		assertThat(HedgingSimulation.curvesCsv(DOCS_RESULTS))
			.startsWith("variant,runs,nines,percentile,latency_ms_median\n")
			.contains("\n\"hedge at p95, 1 hedge\",5,3.00,99.9000,");
		assertThat(HedgingSimulation.runsCsv(DOCS_RESULTS)).startsWith("variant,seed,")
			.contains("\n\"timeout at p99, retry\",4,100000,");
		assertThat(HedgingSimulation.svg(SCENARIO, DOCS_RESULTS)).startsWith("<svg")
			.contains("<polyline")
			.endsWith("</svg>\n");
	}

	private static void assertSameRun(Trace actual, Trace expected) {
		assertThat(actual.result()).usingRecursiveComparison().isEqualTo(expected.result());
		// Arrays.equals, unlike the recursive comparison, holds NaN (a copy not sent) equal to itself.
		assertThat(actual.latencyMs()).isEqualTo(expected.latencyMs());
		assertThat(actual.copyMs()).isEqualTo(expected.copyMs());
	}

	private static double copy(Trace trace, int call, int copy) {
		return trace.copyMs()[call * HedgingModel.TRACED_COPIES + copy];
	}

	private static int sent(Trace trace, int call) {
		int sent = 0;
		while (sent < HedgingModel.TRACED_COPIES && !Double.isNaN(copy(trace, call, sent))) {
			sent++;
		}
		return sent;
	}

	private static double shareAbove(double[] values, double threshold) {
		return (double) Arrays.stream(values).filter((value) -> value > threshold).count() / values.length;
	}

}
