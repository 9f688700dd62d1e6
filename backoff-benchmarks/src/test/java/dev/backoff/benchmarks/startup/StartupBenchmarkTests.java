package dev.backoff.benchmarks.startup;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import dev.backoff.benchmarks.startup.StartupApplication.Measurement;
import dev.backoff.benchmarks.startup.StartupSources.Flavour;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Proves the harness on a tiny application, once for all tests: every variant starts, calls
 * every method, and is proxied (or not) as meant; no timing is asserted. The variants start one
 * after another in one child JVM ({@link StartupBenchmark.Children#CHECK}): one fresh JVM each
 * cost 25 s of CPU where this costs 5.
 */
class StartupBenchmarkTests {

	private static final int BEANS = 10;

	private static final int METHODS = BEANS * StartupSources.METHODS_PER_BEAN;

	@TempDir
	static Path classes;

	private static Map<StartupVariant, List<Measurement>> results;

	private static String progress;

	@BeforeAll
	static void runOnce() throws Exception {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		results = StartupBenchmark.run(1, BEANS, classes, List.of(StartupVariant.values()),
				new PrintStream(out, true, StandardCharsets.UTF_8), StartupBenchmark.Children.CHECK);
		progress = out.toString(StandardCharsets.UTF_8);
	}

	@Test
	void everyVariantStartsOnceAndCallsEveryMethod() {
		assertThat(results).containsOnlyKeys(StartupVariant.values());
		results.forEach((variant, measurements) -> {
			assertThat(measurements).singleElement().satisfies((measurement) -> {
				assertThat(measurement.variant()).isEqualTo(variant.id());
				assertThat(measurement.calls()).isEqualTo(METHODS);
				assertThat(measurement.startupNanos()).isPositive();
				assertThat(measurement.heapAfterCalls()).isPositive();
			});
		});
		assertThat(progress).contains("run 1/1 framework");
	}

	@Test
	void retryVariantsProxyEveryBeanAndPlainNone() {
		assertThat(only(StartupVariant.PLAIN).proxies()).isZero();
		assertThat(only(StartupVariant.BACKOFF).proxies()).isEqualTo(BEANS);
		assertThat(only(StartupVariant.BACKOFF_METRICS_OFF).proxies()).isEqualTo(BEANS);
		assertThat(only(StartupVariant.FRAMEWORK).proxies()).isEqualTo(BEANS);
		assertThat(only(StartupVariant.PLAIN_ACTUATOR).proxies()).isZero();
		assertThat(only(StartupVariant.BACKOFF_ACTUATOR).proxies()).isEqualTo(BEANS);
		assertThat(only(StartupVariant.FRAMEWORK_ACTUATOR).proxies()).isEqualTo(BEANS);
		assertThat(only(StartupVariant.BACKOFF_TRACING).proxies()).isEqualTo(BEANS);
	}

	@Test
	void backoffMetersExistOnlyWithMetricsOn() {
		assertThat(only(StartupVariant.BACKOFF).meters()).isPositive();
		assertThat(only(StartupVariant.BACKOFF_METRICS_OFF).meters()).isZero();
		assertThat(only(StartupVariant.FRAMEWORK).meters()).isZero();
		assertThat(only(StartupVariant.FRAMEWORK_ACTUATOR).meters()).isZero();
	}

	/**
	 * With the actuator and no tracer, the {@code backoff.*} meters alone: one per method once
	 * each has succeeded, its {@code success} counter, and no timer of Boot's meter observation
	 * handler. With a tracer, the calls are observed and Boot's meter handler adds its timers.
	 */
	@Test
	void theActuatorAloneAddsNoObservationTimers() {
		assertThat(only(StartupVariant.BACKOFF_ACTUATOR).meters()).isEqualTo(METHODS)
			.isEqualTo(only(StartupVariant.BACKOFF).meters());
		assertThat(only(StartupVariant.BACKOFF_TRACING).meters()).isGreaterThan(only(StartupVariant.BACKOFF).meters());
		assertThat(only(StartupVariant.PLAIN_ACTUATOR).allMeters()).isPositive();
	}

	/**
	 * The actuator's simple registry needs no failure counters at 0; asked for, they are six per
	 * method, and the {@code backoff.retry.after} timer of a method that retries one more.
	 */
	@Test
	void failureCountersAtZeroAreSevenMoreMetersPerRetryingMethod() {
		assertThat(only(StartupVariant.BACKOFF_FAILURES_AT_ZERO_ACTUATOR).meters()).isEqualTo(8 * METHODS);
	}

	@Test
	void tableShowsEveryVariantTheAddedFiguresAndTheRatios() {
		String table = StartupBenchmark.table(results, BEANS);
		assertThat(table).contains("10 beans x 5 methods, runs per variant: 1")
			.contains("| plain |", "| backoff |", "| backoff-metrics-off |", "| framework |")
			.contains("| plain-actuator |", "| backoff-actuator |", "| framework-actuator |")
			.contains("Added to plain with the same application")
			.contains("| backoff / framework |", "| backoff-metrics-off / framework |",
					"| backoff-actuator / framework-actuator |", "| backoff-tracing / framework-tracing |");
		assertThat(table.lines().filter((line) -> line.startsWith("| framework | "))).hasSize(2);
	}

	@Test
	void generatedClassesDifferOnlyInTheAnnotation() {
		String plain = StartupSources.beanSource(Flavour.PLAIN, 7);
		assertThat(StartupSources.beanSource(Flavour.BACKOFF, 7).replace("@dev.backoff.Backoff", ""))
			.isEqualTo(plain);
		assertThat(StartupSources.beanSource(Flavour.FRAMEWORK, 7)
			.replace("@org.springframework.resilience.annotation.Retryable(maxRetries = 2)", "")).isEqualTo(plain);
		assertThat(plain).contains("public class Bean0007");
	}

	@Test
	void aVariantRunsWithItsBaselineAndFrameworkVariant() {
		assertThat(StartupBenchmark.variants("backoff-actuator")).containsExactly(StartupVariant.PLAIN_ACTUATOR,
				StartupVariant.BACKOFF_ACTUATOR, StartupVariant.FRAMEWORK_ACTUATOR);
	}

	private static Measurement only(StartupVariant variant) {
		return results.get(variant).get(0);
	}

}
