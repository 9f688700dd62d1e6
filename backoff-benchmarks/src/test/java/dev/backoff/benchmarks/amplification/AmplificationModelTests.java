package dev.backoff.benchmarks.amplification;

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
		Map<Variant, List<Result>> results = AmplificationSimulation.simulate(SCENARIO, 2);
		assertThat(AmplificationSimulation.seriesCsv(SCENARIO, results)).startsWith("variant,step_ms,start_ms,")
			.contains("without budget,100,0,2,")
			.contains("with budget,10,9900,2,");
		assertThat(AmplificationSimulation.runsCsv(results)).startsWith("variant,seed,")
			.contains("with budget,1,");
		assertThat(AmplificationSimulation.table(SCENARIO, results))
			.contains("| attempts per logical request, during the outage | 3.0000 |");
		assertThat(AmplificationSimulation.svg(SCENARIO, results, 2)).startsWith("<svg")
			.contains("<polyline")
			.endsWith("</svg>\n");
	}

}
