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
		assertThat(ROWS.get(1).before().extraRequests()).isBetween(0.04, 0.06);
		// The first 100 answers wait the fixed delay; then the learned p95 is within 1 % of it.
		assertThat(ROWS.get(2).before().extraRequests()).isBetween(0.04, 0.06);
	}

	@Test
	void afterItSlowsTheFixedDelayHedgesMostCallsAndTheLearnedOneFollowsWithinTheWindow() {
		Row none = ROWS.get(0);
		Row fixed = ROWS.get(1);
		Row learned = ROWS.get(2);
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

}
