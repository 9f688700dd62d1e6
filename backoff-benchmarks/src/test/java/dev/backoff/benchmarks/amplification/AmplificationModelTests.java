package dev.backoff.benchmarks.amplification;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import dev.backoff.benchmarks.amplification.AmplificationModel.Bucket;
import dev.backoff.benchmarks.amplification.AmplificationModel.Result;
import dev.backoff.benchmarks.amplification.AmplificationModel.Scenario;
import dev.backoff.benchmarks.amplification.AmplificationModel.Variant;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class AmplificationModelTests {

	private static final Scenario SCENARIO = Scenario.defaults();

	private static final long SEED = 42;

	@Test
	void withoutBudgetEveryRequestOfTheOutageMakesMaxAttempts() {
		Result result = AmplificationModel.run(SCENARIO, Variant.WITHOUT_BUDGET, SEED);
		assertThat(result.outageRequests()).isGreaterThan(1000);
		assertThat(result.outageAttemptsPerRequest()).isEqualTo(AmplificationModel.MAX_ATTEMPTS);
	}

	@Test
	void withBudgetTheOutageCostsAtMostOnePointTwoAttemptsPerRequest() {
		Result result = AmplificationModel.run(SCENARIO, Variant.WITH_BUDGET, SEED);
		assertThat(result.outageRequests()).isGreaterThan(1000);
		assertThat(result.outageAttemptsPerRequest()).isLessThanOrEqualTo(1.2);
		// The full bucket of 10 leaves 9, 8, 7 and 6 tokens after the first four failures, more
		// than half: those are retried. The fifth leaves 5, and no success refills it until recovery.
		assertThat(result.outageAttempts() - result.outageRequests()).isEqualTo(4);
	}

	@Test
	void withBudgetTheOutageSpendsEveryToken() {
		Result result = AmplificationModel.run(SCENARIO, Variant.WITH_BUDGET, SEED);
		int lastBeforeRecovery = (int) (SCENARIO.recoveryMs() / SCENARIO.bucketMs()) - 1;
		assertThat(result.series().get(lastBeforeRecovery).tokens()).isZero();
		assertThat(result.series().get(lastBeforeRecovery).attemptsPerRequest()).isEqualTo(1.0);
	}

	@Test
	void afterRecoveryTheBudgetRefillsAndRetriesResume() {
		Result result = AmplificationModel.run(SCENARIO, Variant.WITH_BUDGET, SEED);
		assertThat(result.budgetReopensMs()).isBetween(0.0, 1000.0);
		// A retry needs more than half the bucket left after its failure: later than the reopening.
		assertThat(result.firstRetryMs()).isBetween(result.budgetReopensMs(), 1000.0);
		assertThat(result.retriesAfterRecovery()).isGreaterThan(500);
		// From a second after recovery the bucket stays above half, but for short runs of failures.
		List<Bucket> refilled = result.series()
			.subList((int) ((SCENARIO.recoveryMs() + 1000) / SCENARIO.bucketMs()), SCENARIO.buckets());
		assertThat(refilled.stream().filter((bucket) -> bucket.tokens() > AmplificationModel.MAX_TOKENS / 2).count())
			.isGreaterThan(refilled.size() * 95 / 100);
		assertThat(refilled.stream().mapToDouble(Bucket::tokens).average().orElseThrow()).isGreaterThan(8.0);
		// With 5 % residual failures: 1 + 0.05 + 0.05², as without a budget.
		Result without = AmplificationModel.run(SCENARIO, Variant.WITHOUT_BUDGET, SEED);
		assertThat(result.recoveredAttemptsPerRequest()).isCloseTo(1.0525, within(0.01));
		assertThat(without.recoveredAttemptsPerRequest()).isCloseTo(1.0525, within(0.01));
	}

	@Test
	void withoutBudgetRetriesNeverStop() {
		Result result = AmplificationModel.run(SCENARIO, Variant.WITHOUT_BUDGET, SEED);
		assertThat(result.budgetReopensMs()).isNaN();
		assertThat(result.deniedAfterRecovery()).isZero();
		assertThat(result.firstRetryMs()).isBetween(0.0, 200.0);
	}

	@Test
	void partialOutagesStayUnderTheBoundWithBudget() {
		for (double rate : new double[] { 0.1, 0.25, 0.5 }) {
			Scenario brownout = SCENARIO.withOutageFailureRate(rate);
			Result with = AmplificationModel.run(brownout, Variant.WITH_BUDGET, SEED);
			Result without = AmplificationModel.run(brownout, Variant.WITHOUT_BUDGET, SEED);
			assertThat(with.outageAttemptsPerRequest()).as("rate %s", rate).isLessThanOrEqualTo(1.2);
			assertThat(without.outageAttemptsPerRequest()).as("rate %s", rate)
				.isCloseTo(1 + rate + rate * rate, within(0.05));
		}
	}

	@Test
	void inAThrottlingEpisodeTheThrottlingScheduleSpreadsTheRetriesOverTheRateLimit() {
		Scenario episode = Scenario.throttlingEpisode();
		Result plain = AmplificationModel.run(episode, Variant.WITHOUT_BUDGET, SEED);
		Result scheduled = AmplificationModel.run(episode, Variant.THROTTLING_SCHEDULE, SEED);
		// The clients ask about 830 attempts per second of a dependency that admits 400: retried
		// after 100 to 200 ms, most 429s meet the limit again.
		assertThat(plain.outageThrottledShare()).isGreaterThan(0.5);
		assertThat(plain.outageAttemptsPerRequest()).isBetween(1.8, 2.2);
		assertThat(plain.outageSuccessRate()).isBetween(0.7, 0.85);
		// Waiting 1 to 2 s instead, fewer retries meet the limit, and nearly every request succeeds.
		assertThat(scheduled.outageThrottledShare()).isLessThan(0.3);
		assertThat(scheduled.outageAttemptsPerRequest()).isLessThan(1.4);
		assertThat(scheduled.outageSuccessRate()).isGreaterThan(0.95);
		assertThat(AmplificationSimulation.outageLoad(episode, scheduled))
			.isLessThan(AmplificationSimulation.outageLoad(episode, plain) / 1.5);
		// The price is time: a request that was throttled waits a second or more.
		assertThat(scheduled.outageLatencyP99Ms()).isGreaterThan(1000).isGreaterThan(plain.outageLatencyP99Ms());
	}

	@Test
	void theThrottleCostKeepsRetriesWhereAWholeTokenPerFailureWouldStopThem() {
		// At 700 per second about one attempt in six is throttled: more than the ~9 % a budget
		// earns back at a whole token per failure (0.1 / 1.1), less than the ~22 % it earns back
		// at 0.357 (0.1 / 0.457).
		Scenario mild = Scenario.throttlingEpisode().withThrottleLimit(700);
		Result wholeToken = AmplificationModel.run(mild, Variant.WITH_BUDGET, SEED);
		Result throttleCost = AmplificationModel.run(mild, Variant.THROTTLING_SCHEDULE_WITH_BUDGET, SEED);
		assertThat(wholeToken.outageAttemptsPerRequest()).isLessThan(1.01);
		assertThat(wholeToken.outageSuccessRate()).isLessThan(0.85);
		assertThat(throttleCost.outageAttemptsPerRequest()).isBetween(1.05, 1.2);
		assertThat(throttleCost.outageSuccessRate()).isGreaterThan(0.95);
	}

	@Test
	void aBudgetStillStopsRetriesWhenMostAttemptsAreThrottled() {
		Scenario episode = Scenario.throttlingEpisode();
		for (Variant variant : new Variant[] { Variant.WITH_BUDGET, Variant.THROTTLING_SCHEDULE_WITH_BUDGET }) {
			Result result = AmplificationModel.run(episode, variant, SEED);
			assertThat(result.outageAttemptsPerRequest()).as(variant.label()).isLessThan(1.01);
			assertThat(result.recoveredAttemptsPerRequest()).as(variant.label()).isCloseTo(1.0525, within(0.01));
		}
	}

	@Test
	void inAPlainOutageTheThrottlingSettingsChangeNothing() {
		// Nothing there is throttling: the same retries, waits and tokens as without them.
		assertThat(AmplificationModel.run(SCENARIO, Variant.THROTTLING_SCHEDULE, SEED))
			.isEqualTo(AmplificationModel.run(SCENARIO, Variant.WITHOUT_BUDGET, SEED));
		assertThat(AmplificationModel.run(SCENARIO, Variant.THROTTLING_SCHEDULE_WITH_BUDGET, SEED))
			.isEqualTo(AmplificationModel.run(SCENARIO, Variant.WITH_BUDGET, SEED));
	}

	@Test
	void theReadmeShowsTheTablesTheSimulationPrints() throws IOException {
		// The simulation is seeded: the README's medians of 50 runs come out the same on every machine.
		String readme = Files.readString(Path.of("README.md"), StandardCharsets.UTF_8);
		int runs = 50;
		Map<Variant, List<Result>> outage = AmplificationSimulation.simulate(SCENARIO, runs,
				AmplificationSimulation.OUTAGE_VARIANTS);
		assertThat(readme).contains(AmplificationSimulation.table(SCENARIO, outage));
		assertThat(readme).contains(AmplificationSimulation.partialOutageTable(SCENARIO, outage));
		Scenario episode = Scenario.throttlingEpisode();
		Map<Variant, List<Result>> throttling = AmplificationSimulation.simulate(episode, runs,
				List.of(Variant.values()));
		assertThat(readme).contains(AmplificationSimulation.throttlingTable(episode, throttling));
		assertThat(readme).contains(AmplificationSimulation.throttleLimitTable(episode, throttling));
	}

	@Test
	void sameSeedGivesSameResult() {
		for (Variant variant : Variant.values()) {
			assertThat(AmplificationModel.run(SCENARIO, variant, SEED))
				.isEqualTo(AmplificationModel.run(SCENARIO, variant, SEED));
		}
		assertThat(AmplificationModel.run(SCENARIO, Variant.WITH_BUDGET, SEED))
			.isNotEqualTo(AmplificationModel.run(SCENARIO, Variant.WITH_BUDGET, SEED + 1));
	}

	@Test
	void simulationWritesCsvAndSvg() {
		Map<Variant, List<Result>> results = AmplificationSimulation.simulate(SCENARIO, 2,
				AmplificationSimulation.OUTAGE_VARIANTS);
		assertThat(AmplificationSimulation.seriesCsv(SCENARIO, results)).startsWith("variant,step_ms,start_ms,")
			.contains("without budget,100,0,2,")
			.contains("with budget,10,9900,2,");
		assertThat(AmplificationSimulation.runsCsv(results)).startsWith("variant,seed,")
			.contains("with budget,1,");
		assertThat(AmplificationSimulation.table(SCENARIO, results))
			.contains("| attempts per logical request, during the outage | 3.0000 |");
		assertThat(AmplificationSimulation.runsCsv(results)).contains(",outage_latency_p99_ms\n");
		Scenario episode = Scenario.throttlingEpisode();
		assertThat(AmplificationSimulation.throttlingTable(episode,
				AmplificationSimulation.simulate(episode, 2, List.of(Variant.values()))))
			.startsWith("| median of 2 runs | without budget | with budget | throttling schedule | "
					+ "throttling schedule and budget |\n|---|---:|---:|---:|---:|\n")
			.contains("| attempts per second reaching the dependency (it admits 400) |");
		assertThat(AmplificationSimulation.svg(SCENARIO, results, 2)).startsWith("<svg")
			.contains("<polyline")
			.endsWith("</svg>\n");
	}

}
