package dev.backoff.benchmarks.simulation;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StatisticsTests {

	@Test
	void medianOfAnOddCountIsTheMiddleValue() {
		assertThat(Statistics.median(new double[] { 3, 1, 2 })).isEqualTo(2);
	}

	@Test
	void medianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
		assertThat(Statistics.median(new double[] { 4, 1, 3, 2 })).isEqualTo(2.5);
	}

	@Test
	void medianLeavesItsArgumentUnsorted() {
		double[] values = { 3, 1, 2 };
		Statistics.median(values);
		assertThat(values).containsExactly(3, 1, 2);
	}

	@Test
	void quantileInterpolatesBetweenTheClosestRanks() {
		double[] values = { 50, 10, 40, 20, 30 };
		assertThat(Statistics.quantile(values, 0)).isEqualTo(10);
		assertThat(Statistics.quantile(values, 0.1)).isEqualTo(14);
		assertThat(Statistics.quantile(values, 0.5)).isEqualTo(Statistics.median(values));
		assertThat(Statistics.quantile(values, 1)).isEqualTo(50);
	}

	@Test
	void noValuesHaveNoSummary() {
		assertThat(Statistics.median(new double[0])).isNaN();
		assertThat(Statistics.quantile(new double[0], 0.5)).isNaN();
		assertThat(Statistics.mean(new double[0])).isNaN();
	}

}
