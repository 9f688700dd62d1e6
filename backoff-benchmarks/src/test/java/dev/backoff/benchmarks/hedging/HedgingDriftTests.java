package dev.backoff.benchmarks.hedging;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import dev.backoff.benchmarks.hedging.HedgingDrift.Row;
import dev.backoff.benchmarks.hedging.HedgingModel.Scenario;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link HedgingDrift}: when the service slows down, a fixed hedge delay sends a copy for most
 * calls, while one that follows the answers ({@code hedge-percentile}) keeps to the slowest few
 * percent and still cuts the tail. Seeded, in virtual time: the same figures on every machine.
 */
class HedgingDriftTests {

	private static final Scenario SCENARIO = HedgingDrift.scenario(HedgingDrift.CALLS);

	private static final List<Row> ROWS = HedgingDrift.run(SCENARIO);

	@Test
	void theDocsShowTheTableTheExperimentPrints() throws IOException {
		String docs = Files.readString(Path.of("../docs/hedging.md"), StandardCharsets.UTF_8);
		assertThat(docs).contains(HedgingDrift.table(SCENARIO, ROWS));
	}

	@Test
	void beforeTheServiceSlowsBothDelaysHedgeTheSlowestFivePercent() {
		assertThat(ROWS.get(0).before().extraRequests()).isZero();
		for (Row hedged : ROWS.subList(1, ROWS.size())) {
			// The first 100 answers wait the fixed delay; then the learned p95 is within 1 % of it.
			assertThat(hedged.before().extraRequests()).as(hedged.label()).isBetween(0.04, 0.06);
			assertThat(hedged.before().p999Ms()).as(hedged.label()).isLessThan(ROWS.get(0).before().p999Ms() / 30);
		}
	}

	@Test
	void withoutTheCapTheFixedDelayHedgesMostCallsAfterTheSlowdownAndTheLearnedOneFollowsWithinTheWindow() {
		Row none = ROWS.get(0);
		Row fixed = ROWS.get(3);
		Row learned = ROWS.get(4);
		assertThat(fixed.label()).endsWith("no cap");
		assertThat(none.later().extraRequests()).isZero();
		assertThat(fixed.firstMinute().extraRequests()).isGreaterThan(0.5);
		assertThat(fixed.later().extraRequests()).isGreaterThan(0.5);
		// While the window still holds answers from before, the delay lags: more than 5 %, far
		// fewer than the fixed delay's.
		assertThat(learned.firstMinute().extraRequests()).isBetween(0.05, fixed.firstMinute().extraRequests() / 3);
		assertThat(learned.later().extraRequests()).isBetween(0.04, 0.06);
		// Still hedged where it matters: the slow tail, ten times shorter than without hedging.
		assertThat(learned.later().p999Ms()).isLessThan(none.later().p999Ms() / 10);
	}

	@Test
	void withTheCapNoMinuteOfTheSlowdownHedgesMoreThanItsShareAndTheLearnedDelayStillCutsTheTail() {
		Row none = ROWS.get(0);
		for (Row capped : ROWS.subList(1, 3)) {
			// Issue 48: at most 5.5 % extra in every minute; 5 % of the calls and the burst of 10.
			assertThat(capped.worstMinute()).as(capped.label()).isLessThanOrEqualTo(0.055);
			assertThat(capped.firstMinute().extraRequests()).as(capped.label()).isLessThanOrEqualTo(0.0502);
		}
		Row fixed = ROWS.get(1);
		Row learned = ROWS.get(2);
		// The fixed delay, now below most answers: its few hedges go to whichever calls come first,
		// rarely the slow ones, and the tail is as long as without hedging.
		assertThat(fixed.later().p999Ms()).isGreaterThan(none.later().p999Ms() / 2);
		// The learned delay, once its window has the slower answers, hedges the slowest 5 % again:
		// the p99.9 ten times below no hedging's before the slowdown, let alone after it.
		assertThat(learned.later().p999Ms()).isLessThan(none.before().p999Ms() / 10);
		// In its first minute it lags, wants 16 % and gets 5 %: the tail is not cut there.
		assertThat(learned.firstMinute().p999Ms()).isGreaterThan(none.before().p999Ms());
	}

}
