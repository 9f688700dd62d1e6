package dev.backoff.benchmarks.contention;

import dev.backoff.benchmarks.contention.ContentionModel.Result;
import dev.backoff.benchmarks.contention.ContentionModel.Strategy;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ContentionModelTests {

	@Test
	void oneClientFinishesWithExactlyOneWrite() {
		for (Strategy strategy : Strategy.values()) {
			for (long seed = 0; seed < 20; seed++) {
				Result result = ContentionModel.run(strategy, 1, seed);
				assertThat(result.work()).isEqualTo(1);
				// Four hops of about 10 ms each.
				assertThat(result.timeMs()).isBetween(10.0, 80.0);
			}
		}
	}

	@Test
	void twoClientsFinish() {
		for (Strategy strategy : Strategy.values()) {
			Result result = ContentionModel.run(strategy, 2, 42);
			assertThat(result.work()).isGreaterThanOrEqualTo(2);
			assertThat(result.timeMs()).isPositive();
		}
	}

	@Test
	void workIsNeverBelowTheNumberOfClients() {
		for (Strategy strategy : Strategy.values()) {
			for (int clients : new int[] { 3, 10, 25 }) {
				assertThat(ContentionModel.run(strategy, clients, 7).work()).isGreaterThanOrEqualTo(clients);
			}
		}
	}

	@Test
	void sameSeedGivesSameResult() {
		assertThat(ContentionModel.run(Strategy.FULL, 20, 99)).isEqualTo(ContentionModel.run(Strategy.FULL, 20, 99));
	}

	@Test
	void clientsThatStartTogetherWithoutBackoffCollide() {
		// With every client retrying at once, only one write per round can win.
		assertThat(ContentionModel.run(Strategy.NO_BACKOFF, 10, 3).work()).isGreaterThan(10);
	}

	@Test
	void simulationWritesCsvAndSvg() {
		var point = ContentionSimulation.simulate(Strategy.FULL, 5, 10);
		var points = new java.util.EnumMap<Strategy, java.util.List<ContentionSimulation.Point>>(Strategy.class);
		points.put(Strategy.FULL, java.util.List.of(point));
		assertThat(ContentionSimulation.csv(points)).startsWith("strategy,clients,").contains("full,5,10,");
		assertThat(ContentionSimulation.svg(points, 10)).startsWith("<svg").contains("<polyline").endsWith("</svg>\n");
	}

}
