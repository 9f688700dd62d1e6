package dev.backoff.benchmarks.consumers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import dev.backoff.benchmarks.consumers.ConsumerGroupModel.Result;
import dev.backoff.benchmarks.consumers.ConsumerGroupModel.Scenario;
import dev.backoff.benchmarks.consumers.ConsumerRetries.SeededJitter;
import dev.backoff.benchmarks.consumers.ConsumerRetries.Variant;
import dev.backoff.benchmarks.simulation.Runs;
import org.junit.jupiter.api.Test;

import org.springframework.util.backoff.BackOffExecution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ConsumerGroupModelTests {

	private static final Scenario SCENARIO = Scenario.defaults();

	/** The runs of the table in docs/benchmarks.md, computed once for the tests that read them. */
	private static final Map<Variant, List<Result>> DOCS_RESULTS = ConsumerGroupSimulation.simulate(SCENARIO,
			ConsumerGroupSimulation.DOCS_RUNS);

	/** The breaker's runs with a recipe's settings, for the third table. */
	private static final List<Result> BREAKER_RECIPE_RESULTS = ConsumerGroupSimulation.simulateBreakerRecipe(SCENARIO,
			DOCS_RESULTS);

	/** Outage mode's runs by its longest pause, for the second table. */
	private static final Map<Duration, List<Result>> MAX_PAUSE_RESULTS = ConsumerGroupSimulation
		.simulateMaxPauses(SCENARIO, DOCS_RESULTS);

	@Test
	void theDocsShowTheTableTheSimulationPrints() throws IOException {
		// Seeded: the docs' medians of DOCS_RUNS runs come out the same on every machine.
		String docs = Files.readString(Path.of("../docs/benchmarks.md"), StandardCharsets.UTF_8);
		assertThat(docs).contains(ConsumerGroupSimulation.table(SCENARIO, DOCS_RESULTS));
		assertThat(docs).contains(ConsumerGroupSimulation.maxPauseTable(SCENARIO, MAX_PAUSE_RESULTS));
		assertThat(docs).contains(ConsumerGroupSimulation.breakerTable(SCENARIO, DOCS_RESULTS, BREAKER_RECIPE_RESULTS));
	}

	@Test
	void aShorterMaxPauseDrainsSoonerForMoreProbes() {
		List<List<Result>> runs = List.copyOf(MAX_PAUSE_RESULTS.values());
		for (int shorter = 1; shorter < runs.size(); shorter++) {
			assertThat(Runs.median(runs.get(shorter), Result::drainMs))
				.isLessThan(Runs.median(runs.get(shorter - 1), Result::drainMs));
			assertThat(Runs.median(runs.get(shorter), Result::outageCalls))
				.isGreaterThan(Runs.median(runs.get(shorter - 1), Result::outageCalls));
		}
	}

	@Test
	void sameSeedGivesSameResult() {
		for (Variant variant : Variant.values()) {
			assertThat(ConsumerGroupModel.run(SCENARIO, variant, 0)).as(variant.label())
				.usingRecursiveComparison()
				.isEqualTo(DOCS_RESULTS.get(variant).get(0));
		}
		assertThat(DOCS_RESULTS.get(Variant.FULL).get(1)).usingRecursiveComparison()
			.isNotEqualTo(DOCS_RESULTS.get(Variant.FULL).get(0));
	}

	@Test
	void fixedBackOffSendsARecordToTheDeadLetterTopicAfterExactlyTenDeliveries() {
		for (Result run : DOCS_RESULTS.get(Variant.FIXED)) {
			assertThat(run.deadLettered()).isGreaterThan(10_000);
			assertThat(run.minDeadLetterDeliveries()).isEqualTo(10);
			assertThat(run.maxDeadLetterDeliveries()).isEqualTo(10);
		}
	}

	@Test
	void noVariantDeliversARecordMoreThanItsMaxAttempts() {
		DOCS_RESULTS.forEach((variant, runs) -> {
			for (Result run : runs) {
				assertThat(run.maxDeliveries()).as(variant.label()).isLessThanOrEqualTo(ConsumerRetries.MAX_ATTEMPTS);
			}
		});
		// Without a budget, a record of the outage is retried up to its max attempts: with waits
		// from 1 s doubling to 30 s, the first record of the outage still fails its tenth delivery
		// in some runs, never in others.
		assertThat(DOCS_RESULTS.get(Variant.FULL).stream().mapToInt(Result::maxDeliveries).max().orElseThrow())
			.isEqualTo(ConsumerRetries.MAX_ATTEMPTS);
	}

	@Test
	void anEmptyBudgetSendsARecordToTheDeadLetterTopicAfterOneDelivery() {
		for (Variant variant : new Variant[] { Variant.FULL_BUDGET, Variant.DECORRELATED_BUDGET }) {
			for (Result run : DOCS_RESULTS.get(variant)) {
				assertThat(run.minDeadLetterDeliveries()).as(variant.label()).isEqualTo(1);
				// Each instance's budget of 10 tokens allows retries after its first 4 failures only.
				assertThat(run.maxDeadLetterDeliveries()).as(variant.label()).isLessThanOrEqualTo(5);
			}
		}
	}

	@Test
	void withABudgetEachRecordOfTheOutageCostsOneCallAndGoesToTheDeadLetterTopic() {
		long recordsOfTheOutage = (long) (SCENARIO.consumers() * SCENARIO.arrivalsPerSecond()
				* SCENARIO.outageSeconds());
		for (Variant variant : new Variant[] { Variant.FULL_BUDGET, Variant.DECORRELATED_BUDGET }) {
			for (int seed = 0; seed < ConsumerGroupSimulation.DOCS_RUNS; seed++) {
				Result run = DOCS_RESULTS.get(variant).get(seed);
				// About 30,000 records arrive during the outage: one call each, a few retries
				// before the budgets empty, every one dead-lettered, and no backlog.
				assertThat(run.outageCalls()).as(variant.label()).isCloseTo(recordsOfTheOutage, within(1_000L));
				assertThat(run.deadLettered()).as(variant.label()).isCloseTo(recordsOfTheOutage, within(1_000L));
				assertThat(run.drainMs()).as(variant.label()).isLessThanOrEqualTo(SCENARIO.tickMs());
				// Five times fewer calls than Spring Kafka's default, which delivers each record ten times.
				Result fixed = DOCS_RESULTS.get(Variant.FIXED).get(seed);
				assertThat(run.outageCalls() * 4).as(variant.label()).isLessThan(fixed.outageCalls());
			}
		}
	}

	@Test
	void withoutABudgetABlockedPartitionCallsLessDuringTheOutageThanWithOneButBuildsABacklog() {
		// The budget does not lower the calls of the outage against the same policy without it:
		// without it, each partition is blocked behind one record retried every few seconds.
		for (Variant[] pair : new Variant[][] { { Variant.FULL, Variant.FULL_BUDGET },
				{ Variant.DECORRELATED, Variant.DECORRELATED_BUDGET } }) {
			for (int seed = 0; seed < ConsumerGroupSimulation.DOCS_RUNS; seed++) {
				Result without = DOCS_RESULTS.get(pair[0]).get(seed);
				Result with = DOCS_RESULTS.get(pair[1]).get(seed);
				assertThat(without.outageCalls()).as(pair[0].label()).isLessThan(with.outageCalls() / 20);
				assertThat(without.deadLettered()).as(pair[0].label()).isLessThan(100);
				assertThat(without.drainMs()).as(pair[0].label()).isGreaterThan(60_000);
			}
		}
	}

	@Test
	void fixedBackOffMultipliesTheLoadOnTheFailingDownstreamAndOverloadsItsRecovery() {
		for (Result run : DOCS_RESULTS.get(Variant.FIXED)) {
			// Every consumer delivers back to back: 50 calls per second each, 5 times the steady load.
			assertThat(run.outageCalls() / SCENARIO.outageSeconds()).isCloseTo(2_500, within(25.0));
			assertThat(run.peakLoad(SCENARIO)).isEqualTo(2.5);
		}
	}

	@Test
	void outageModeDeadLettersNothingAndOnlyProbesOncePaused() {
		double recordsPerSecond = SCENARIO.consumers() * SCENARIO.arrivalsPerSecond();
		int instances = SCENARIO.consumers() / SCENARIO.consumersPerInstance();
		int firstSecond = (int) ((SCENARIO.outageStartMs() + 1000) / SCENARIO.tickMs());
		int recovered = (int) (SCENARIO.outageEndMs() / SCENARIO.tickMs());
		double pausedSeconds = SCENARIO.outageSeconds() - 1;
		for (Result run : DOCS_RESULTS.get(Variant.OUTAGE)) {
			// The targets: no record of the outage dead-lettered, and at most 1 % of the
			// record rate reaching the failing downstream.
			assertThat(run.deadLettered()).isZero();
			assertThat(run.outageCalls() / SCENARIO.outageSeconds()).isLessThanOrEqualTo(0.01 * recordsPerSecond);
			// Once the budgets have refused (within a second), a probe per instance per pause of at least probeDelay.
			int paused = Arrays.stream(run.callsPerTick(), firstSecond, recovered).sum();
			assertThat(paused).isLessThanOrEqualTo((int) (instances * pausedSeconds
					/ ConsumerGroupModel.PROBE_DELAY.toSeconds()));
			// The probes go round each instance's held partitions: no record is probed more than
			// a few times, though nothing of the outage counts toward its max attempts.
			assertThat(run.maxDeliveries()).isLessThanOrEqualTo(ConsumerRetries.MAX_ATTEMPTS);
		}
	}

	@Test
	void outageModeRampsTheRecoveryNearItsCapacityAndDrainsSoonerThanABlockedPartition() {
		// The targets: 1.2× the capacity-limited minimum for the drain, met with the
		// default outage-max-pause of 10 s; 1.0× the capacity at the peak, not met
		// (docs/benchmarks.md says why). Against the same policy without outage mode and without a budget:
		List<Result> runs = DOCS_RESULTS.get(Variant.OUTAGE);
		for (int seed = 0; seed < ConsumerGroupSimulation.DOCS_RUNS; seed++) {
			Result run = runs.get(seed);
			Result blocked = DOCS_RESULTS.get(Variant.FULL).get(seed);
			assertThat(run.peakLoad(SCENARIO)).isLessThanOrEqualTo(1.25).isLessThan(blocked.peakLoad(SCENARIO));
			assertThat(run.drainMs()).isLessThanOrEqualTo(1.5 * run.minDrainMs(SCENARIO)).isLessThan(blocked.drainMs());
			assertThat(run.backlog(SCENARIO)).isCloseTo(blocked.backlog(SCENARIO), within(500));
		}
		// The ramp cuts to what the downstream delivered and grows by a step, not a share, small
		// after a cut: in the median, a peak a little above the capacity (1.11× when the step
		// did not restart small) and a drain within 1.2× the minimum (with outage-max-pause 30s,
		// 1.34×: the instances find the recovery up to 30 s late).
		assertThat(Runs.median(runs, (run) -> run.peakLoad(SCENARIO))).isLessThanOrEqualTo(1.09);
		assertThat(Runs.median(runs, (run) -> run.drainMs() / run.minDrainMs(SCENARIO))).isLessThanOrEqualTo(1.2);
		// Above 1.04× the capacity in one tick of 135 after recovery (one of 9 when the step did not restart small).
		int recovered = (int) (SCENARIO.outageEndMs() / SCENARIO.tickMs());
		long ticks = 0;
		long above = 0;
		for (Result run : runs) {
			int[] calls = Arrays.copyOfRange(run.callsPerTick(), recovered, run.callsPerTick().length);
			ticks += calls.length;
			above += Arrays.stream(calls).filter((tick) -> tick > 1.04 * SCENARIO.capacityPerTick()).count();
		}
		assertThat(above).isLessThan(ticks / 50);
	}

	@Test
	void aCircuitBreakerPausingTheWholeConsumerOpensOnHalfItsWindowAndResumesEveryConsumerAtOnce() {
		int instances = SCENARIO.consumers() / SCENARIO.consumersPerInstance();
		for (Result run : DOCS_RESULTS.get(Variant.BREAKER)) {
			// Its window of 100 calls still holds the 50 successes before the outage: 50 failures open it.
			int window = PausingBreaker.Settings.DEFAULTS.window();
			assertThat(run.outageCalls()).isBetween((long) instances * window / 2,
					(long) instances * (window / 2 + SCENARIO.consumersPerInstance()));
			// Until then, Spring Kafka's default back-off sends records to the dead-letter topic.
			assertThat(run.deadLettered()).isBetween(20L, 60L);
			// Half-open after 60 s, closed after 10 calls: the whole container resumes at once.
			assertThat(run.peakLoad(SCENARIO)).isGreaterThanOrEqualTo(2.0);
		}
	}

	@Test
	void withARecipesSettingsTheBreakersStayInStepAndTheBacklogNeverDrains() {
		for (Result run : BREAKER_RECIPE_RESULTS) {
			assertThat(run.drainMs()).isNaN();
			assertThat(run.peakLoad(SCENARIO)).isGreaterThanOrEqualTo(1.5);
			// Refused half-open calls spend Spring Kafka's ten immediate deliveries.
			assertThat(run.deadLettered()).isGreaterThan(100);
			assertThat(run.minDeadLetterDeliveries()).isEqualTo(ConsumerRetries.MAX_ATTEMPTS);
		}
	}

	@Test
	void frameworkJitterIsDrawnAsTheRealExponentialBackOffDrawsIt() {
		// The real class draws from Math.random(): compare ranges and means over many cycles.
		int cycles = 2_000;
		int retries = ConsumerRetries.MAX_ATTEMPTS - 1;
		List<List<Long>> real = new ArrayList<>();
		List<List<Long>> seeded = new ArrayList<>();
		for (int retry = 0; retry < retries; retry++) {
			real.add(new ArrayList<>());
			seeded.add(new ArrayList<>());
		}
		SplittableRandom random = new SplittableRandom(7);
		for (int cycle = 0; cycle < cycles; cycle++) {
			BackOffExecution realExecution = ConsumerRetries.frameworkBackOff(ConsumerRetries.FRAMEWORK_JITTER_MS)
				.start();
			BackOffExecution seededExecution = new SeededJitter(ConsumerRetries.frameworkBackOff(0).start(), random);
			for (int retry = 0; retry < retries; retry++) {
				real.get(retry).add(realExecution.nextBackOff());
				seeded.get(retry).add(seededExecution.nextBackOff());
			}
			assertThat(realExecution.nextBackOff()).isEqualTo(BackOffExecution.STOP);
			assertThat(seededExecution.nextBackOff()).isEqualTo(BackOffExecution.STOP);
		}
		BackOffExecution intervals = ConsumerRetries.frameworkBackOff(0).start();
		for (int retry = 0; retry < retries; retry++) {
			long[] range = SeededJitter.jitterRange(intervals.nextBackOff());
			assertThat(real.get(retry)).as("retry %d", retry + 1).allSatisfy((delay) -> assertThat(delay)
				.isBetween(range[0], range[1]));
			assertThat(seeded.get(retry)).as("retry %d", retry + 1).allSatisfy((delay) -> assertThat(delay)
				.isBetween(range[0], range[1]));
			double realMean = real.get(retry).stream().mapToLong(Long::longValue).average().orElseThrow();
			double seededMean = seeded.get(retry).stream().mapToLong(Long::longValue).average().orElseThrow();
			assertThat(seededMean).as("retry %d", retry + 1).isCloseTo(realMean, within(realMean * 0.03));
		}
	}

	@Test
	void simulationWritesCsvAndSvg() {
		assertThat(ConsumerGroupSimulation.seriesCsv(SCENARIO, DOCS_RESULTS))
			.startsWith("variant,start_s,runs,calls_per_second_mean,lag_mean\n")
			.contains("\"FixedBackOff(0, 9)\",0,10,");
		assertThat(ConsumerGroupSimulation.runsCsv(DOCS_RESULTS)).startsWith("variant,seed,")
			.contains("\n\"full jitter, budget\",9,");
		assertThat(ConsumerGroupSimulation.svg(SCENARIO, DOCS_RESULTS, ConsumerGroupSimulation.DOCS_RUNS))
			.startsWith("<svg")
			.contains("<polyline")
			.endsWith("</svg>\n");
	}

}
