package dev.backoff.benchmarks.contention;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.backoff.benchmarks.contention.ContentionModel.Result;
import dev.backoff.benchmarks.contention.ContentionModel.Strategy;
import dev.backoff.benchmarks.contention.ContentionSimulation.Point;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

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

	@Test
	void theReadmeShowsTheCommittedDataWhichIsWhatTheSimulationGives() throws IOException {
		List<String> rows = Files.readAllLines(Path.of("../docs/contention.csv"), StandardCharsets.UTF_8);
		Map<Strategy, List<Point>> points = new EnumMap<>(Strategy.class);
		for (String row : rows.subList(1, rows.size())) {
			String[] field = row.split(",");
			Strategy strategy = Strategy.valueOf(field[0].replace('-', '_').toUpperCase(Locale.ROOT));
			points.computeIfAbsent(strategy, (key) -> new ArrayList<>())
				.add(new Point(strategy, Integer.parseInt(field[1]), Integer.parseInt(field[2]),
						Double.parseDouble(field[3]), Double.parseDouble(field[4]), Double.parseDouble(field[5]),
						Double.parseDouble(field[6])));
		}
		assertThat(points.values()).allSatisfy((curve) -> assertThat(curve).hasSize(ContentionSimulation.CLIENTS.length));
		// The README's table is the program's, but from the CSV's figures, kept to one decimal: a
		// figure may differ by the rounding of that decimal (377.45 is 377 in the table, 377.5 in the CSV).
		List<String> shown = Files.readString(Path.of("README.md"), StandardCharsets.UTF_8).lines().toList();
		List<String> computed = ContentionSimulation.table(points).lines().toList();
		int first = shown.indexOf(computed.get(0));
		assertThat(first).as("the contention table's header in the README").isNotNegative();
		for (int i = 1; i < computed.size(); i++) {
			String[] expected = computed.get(i).split(" \\| ");
			String[] actual = shown.get(first + i).split(" \\| ");
			assertThat(actual).as(shown.get(first + i)).hasSameSizeAs(expected);
			for (int cell = 0; cell < expected.length; cell++) {
				if (i > 1 && cell >= 2) {
					assertThat(Double.parseDouble(actual[cell].replace(" |", "")))
						.as(shown.get(first + i))
						.isCloseTo(Double.parseDouble(expected[cell].replace(" |", "")), within(1.0));
				}
				else {
					assertThat(actual[cell]).isEqualTo(expected[cell]);
				}
			}
		}
		// The model is seeded: a point computed again is the committed one (a cheap one: 10 clients).
		Point again = ContentionSimulation.simulate(Strategy.FULL, 10, 1000);
		assertThat(rows).contains(ContentionSimulation.csv(Map.of(Strategy.FULL, List.of(again))).lines().toList().get(1));
	}

}
