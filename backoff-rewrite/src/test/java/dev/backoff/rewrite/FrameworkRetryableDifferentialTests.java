package dev.backoff.rewrite;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import dev.backoff.rewrite.Differential.Kind;
import dev.backoff.rewrite.Differential.Row;
import dev.backoff.rewrite.DifferentialRun.Runs;
import dev.backoff.rewrite.DifferentialRun.Side;
import dev.backoff.rewrite.DifferentialRun.Subject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static dev.backoff.rewrite.Differential.failing;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exactness proved by comparison, for docs/migrating.md's Framework table: each row that migrates
 * runs under Spring Framework 7's {@code @Retryable} and, after {@code MigrateFrameworkRetryable},
 * under Backoff, with the same scripted failures. Framework sleeps with {@code Thread.sleep} and
 * offers no sleeper, so its side runs the real annotation processing ({@code RetryAnnotationBeanPostProcessor}
 * reads the attributes) with the waits taken out, and records as each retry's wait what the
 * {@code BackOff} of the real {@code RetryPolicy} built from those attributes gives: the waits
 * Framework would have slept. Rows not run here (left whole, or no behaviour) are covered by the
 * test the docs name. The rows run in {@link DifferentialRun}, with those of the other
 * differential tests.
 */
class FrameworkRetryableDifferentialTests {

	/**
	 * Calls of each random row: the chance that 200 draws of one retry all miss the tenth of its
	 * interval next to a bound is 0.9^200, below 10^-9 (Framework draws with Math.random: no seed).
	 */
	private static final int RANDOM_CALLS = 200;

	private static final String IMPORTS = "import org.springframework.resilience.annotation.Retryable;";

	/**
	 * Framework's side: its own post-processor, whose interceptor reads each method's spec as
	 * Framework does, then retries with no wait and records the waits Framework's back-off gives.
	 */
	private static final String FRAMEWORK_RUNNER = Differential.RUNNER.formatted("",
			"@Bean public static RecordingRetryPostProcessor retryPostProcessor() { return new RecordingRetryPostProcessor(); }",
			"""
			public static class RecordingRetryPostProcessor
					extends org.springframework.resilience.annotation.RetryAnnotationBeanPostProcessor {

				public RecordingRetryPostProcessor() {
					org.springframework.aop.support.DefaultPointcutAdvisor real =
							(org.springframework.aop.support.DefaultPointcutAdvisor) this.advisor;
					this.advisor = new org.springframework.aop.support.DefaultPointcutAdvisor(real.getPointcut(),
							new Recording((org.springframework.resilience.retry.AbstractRetryInterceptor) real.getAdvice()));
				}

			}

			static class Recording extends org.springframework.resilience.retry.AbstractRetryInterceptor {

				private final org.springframework.resilience.retry.AbstractRetryInterceptor real;

				Recording(org.springframework.resilience.retry.AbstractRetryInterceptor real) {
					this.real = real;
				}

				@Override
				public Object invoke(org.aopalliance.intercept.MethodInvocation invocation) throws Throwable {
					org.springframework.resilience.retry.MethodRetrySpec spec =
							realSpec(invocation.getMethod(), invocation.getThis().getClass());
					org.springframework.util.backoff.BackOffExecution waits = org.springframework.core.retry.RetryPolicy.builder()
						.maxRetries(spec.maxRetries()).delay(spec.delay()).jitter(spec.jitter())
						.multiplier(spec.multiplier()).maxDelay(spec.maxDelay())
						.build().getBackOff().start();
					org.springframework.aop.ProxyMethodInvocation proxied = (org.springframework.aop.ProxyMethodInvocation) invocation;
					int[] attempts = { 0 };
					org.aopalliance.intercept.MethodInvocation recording = new org.aopalliance.intercept.MethodInvocation() {
						public java.lang.reflect.Method getMethod() { return proxied.getMethod(); }
						public Object[] getArguments() { return proxied.getArguments(); }
						public Object getThis() { return proxied.getThis(); }
						public java.lang.reflect.AccessibleObject getStaticPart() { return proxied.getStaticPart(); }
						public Object proceed() throws Throwable {
							if (attempts[0]++ > 0) {
								WAITS.add(waits.nextBackOff());
							}
							return proxied.invocableClone().proceed();
						}
					};
					return super.invoke(recording);
				}

				/** The spec with Framework's waits taken out: they are recorded instead. */
				@Override
				protected org.springframework.resilience.retry.MethodRetrySpec getRetrySpec(java.lang.reflect.Method method,
						Class<?> targetClass) {
					org.springframework.resilience.retry.MethodRetrySpec spec = realSpec(method, targetClass);
					return new org.springframework.resilience.retry.MethodRetrySpec(spec.includes(), spec.excludes(),
							spec.predicate(), spec.maxRetries(), spec.timeout(), java.time.Duration.ZERO,
							java.time.Duration.ZERO, 1.0, spec.maxDelay());
				}

				private org.springframework.resilience.retry.MethodRetrySpec realSpec(java.lang.reflect.Method method,
						Class<?> targetClass) {
					try {
						java.lang.reflect.Method read = org.springframework.resilience.retry.AbstractRetryInterceptor.class
							.getDeclaredMethod("getRetrySpec", java.lang.reflect.Method.class, Class.class);
						read.setAccessible(true);
						return (org.springframework.resilience.retry.MethodRetrySpec) read.invoke(this.real, method, targetClass);
					}
					catch (ReflectiveOperationException ex) {
						throw new IllegalStateException(ex);
					}
				}

			}
			""");

	private static final List<Row> ROWS = List.of(
			row("defaultsAreFourAttemptsOneSecondFixed", Kind.EXACT, "@Retryable", failing(9)),
			row("maxRetriesCountsRetries", Kind.EXACT, "@Retryable(maxRetries = 5)", failing(9)),
			row("maxRetriesPlaceholderAddsTheFirstCall", Kind.EXACT,
					"@Retryable(maxRetriesString = \"${quotes.retries:4}\", delay = 10)", failing(9)),
			row("maxRetriesBeanExpressionAddsTheFirstCall", Kind.EXACT,
					"@Retryable(maxRetriesString = \"#{@quoteSettings.retries}\", delay = 10)", failing(9)),
			row("delayMultiplierAndMaxDelay", Kind.EXACT,
					"@Retryable(maxRetries = 5, delay = 100, multiplier = 2, maxDelay = 1000)", failing(9)),
			row("unlimitedMaxDelayIsTheLastCeilingWhenAboveOurDefault", Kind.EXACT,
					"@Retryable(maxRetries = 6, delay = 1000, multiplier = 3)", failing(9)),
			row("timeUnitConvertsDurations", Kind.EXACT,
					"@Retryable(delay = 2, maxDelay = 10, multiplier = 2, timeUnit = java.util.concurrent.TimeUnit.SECONDS)",
					failing(9)),
			row("delayStringIsCarried", Kind.EXACT, "@Retryable(delayString = \"${quotes.delay:250ms}\")", failing(9)),
			// Noted: the expression hides whether the last ceiling passes our 20 s cap; here it does not.
			Row.of("delayBeanExpressionIsCarried", Kind.EXACT, true, IMPORTS,
					"@Retryable(delayString = \"#{T(java.lang.String).valueOf(300)}\", multiplierString = \"2\")", failing(9),
					""),
			Row.of("constantArithmeticStaysArithmetic", Kind.EXACT, false, IMPORTS,
					"@Retryable(maxRetries = Limits.RETRIES + 1, delay = Limits.DELAY + 50)", failing(9),
					"static final class Limits { static final int RETRIES = 3; static final long DELAY = 200; }"),
			Row.of("jitterIsEqualJitter", Kind.RANDOM, true, IMPORTS, "@Retryable(delay = 1000, jitter = 200)", failing(9),
					""),
			row("includesAndExcludes", Kind.EXACT,
					"@Retryable(includes = IllegalStateException.class, excludes = IllegalArgumentException.class, delay = 10)",
					"if (n < 2) throw RowRunner.thrown(new IllegalStateException(\"busy \" + n));"
							+ " throw RowRunner.thrown(new IllegalStateException(\"wrapped \" + n, new IllegalArgumentException(\"bad\")));"),
			row("includesMatchCauses", Kind.EXACT, "@Retryable(includes = java.io.IOException.class, delay = 10)",
					"if (n < 3) throw RowRunner.thrown(new IllegalStateException(\"wrapped \" + n, new java.io.IOException(\"io\")));"
							+ " throw RowRunner.thrown(new IllegalStateException(\"plain \" + n));"),
			row("valueIsIncludes", Kind.EXACT, "@Retryable(value = java.io.IOException.class, delay = 10)",
					"if (n < 2) throw RowRunner.thrown(new java.io.IOException(\"io \" + n));"
							+ " throw RowRunner.thrown(new IllegalStateException(\"no \" + n));"),
			row("errorsAreRetriedByFrameworkOnly", Kind.DIFFERS, "@Retryable(delay = 10)",
					"if (n < 9) throw RowRunner.thrown(new AssertionError(\"broken \" + n)); return \"ok \" + n;"),
			row("exhaustedRetriesGiveTheLastFailure", Kind.EXACT, "@Retryable(maxRetries = 2, delay = 10)",
					"throw RowRunner.thrown(new java.io.UncheckedIOException(\"down \" + n, new java.io.IOException(\"io\")));"));

	/** Migrated rows run with the whole test class path, Spring Retry's included. */
	static final Subject SUBJECT = new Subject("framework", "dev.backoff.rewrite.MigrateFrameworkRetryable",
			FRAMEWORK_RUNNER, RANDOM_CALLS, List.of(new Side(ROWS, Differential.BACKOFF_RUNNER, true)));

	private static Map<String, List<String>> framework;

	private static Map<String, List<String>> backoff;

	private static Map<String, String> migrated;

	private static Runs runs;

	private static Row row(String name, Kind kind, String annotations, String script) {
		return Row.of(name, kind, false, IMPORTS, annotations, script, "");
	}

	@BeforeAll
	static void runEveryRowUnderBothLibraries() throws Exception {
		runs = DifferentialRun.of(SUBJECT);
		framework = runs.before();
		backoff = runs.after();
		migrated = runs.migrated();
		long equal = ROWS.stream().filter((row) -> row.kind() == Kind.EXACT).count();
		System.out.printf("Backoff migration, differential: %d rows of docs/migrating.md's Framework table run under "
				+ "Framework's @Retryable and, migrated, under Backoff: %d equal (%d of them with the recipe's note), "
				+ "%d differ (%d noted, %d the documented Error difference)%n", ROWS.size(), equal,
				ROWS.stream().filter((row) -> row.kind() == Kind.EXACT && row.noted()).count(), ROWS.size() - equal,
				ROWS.stream().filter((row) -> row.kind() != Kind.EXACT && row.noted()).count(),
				ROWS.stream().filter((row) -> row.kind() != Kind.EXACT && !row.noted()).count());
		ROWS.forEach((row) -> System.out.printf("  %s: %s | %s%n", row.name(), framework.get(row.name()).get(0),
				backoff.get(row.name()).get(0)));
		System.out.println("  jitter bounds: " + java.util.Arrays.deepToString(Differential.bounds(framework.get("jitterIsEqualJitter")))
				+ " | " + java.util.Arrays.deepToString(Differential.bounds(backoff.get("jitterIsEqualJitter"))));
	}

	static Stream<String> rows() {
		return ROWS.stream().map(Row::name);
	}

	static Stream<String> exactRows() {
		return ROWS.stream().filter((row) -> row.kind() == Kind.EXACT).map(Row::name);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("rows")
	void everyRowMigrates(String row) {
		assertThat(migrated.get(row)).as(row)
			.doesNotContain("org.springframework.resilience.annotation")
			.contains("@Backoff(");
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("exactRows")
	void exactRowsBehaveAlikeUnderBothLibraries(String row) {
		runs.assertAlike(SUBJECT.row(row), "Backoff migration, not exact");
	}

	@Test
	void jitterIsNotedAndItsWaitsDifferAsTheNoteSays() {
		List<String> before = framework.get("jitterIsEqualJitter");
		List<String> after = backoff.get("jitterIsEqualJitter");
		assertThat(Differential.attemptsAndOutcomes(after)).isEqualTo(Differential.attemptsAndOutcomes(before));
		assertThat(migrated.get("jitterIsEqualJitter")).contains("Backoff migration, not exact");
		// Framework: up to 200 ms above the delay but never below it (ExponentialBackOff keeps the
		// initial interval as the floor); EQUAL jitter: between half the ceiling and the ceiling.
		for (long[] bounds : Differential.bounds(before)) {
			assertThat(bounds[0]).isBetween(1000L, 1020L);
			assertThat(bounds[1]).isBetween(1180L, 1200L);
		}
		for (long[] bounds : Differential.bounds(after)) {
			assertThat(bounds[0]).isBetween(500L, 550L);
			assertThat(bounds[1]).isBetween(950L, 1000L);
		}
	}

	@Test
	void anErrorIsRetriedByFrameworkAndNotByBackoffAsTheDocsSay() {
		assertThat(framework.get("errorsAreRetriedByFrameworkOnly")).containsExactly("4|threw java.lang.AssertionError: broken 4 #4|[10, 10, 10]");
		assertThat(backoff.get("errorsAreRetriedByFrameworkOnly")).containsExactly("1|threw java.lang.AssertionError: broken 1 #1|[]");
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("rows")
	void everyRowIsATestOfTheDocsOrOneOfItsOwn(String row) {
		List<String> ownRows = List.of("maxRetriesBeanExpressionAddsTheFirstCall", "delayBeanExpressionIsCarried",
				"includesMatchCauses", "errorsAreRetriedByFrameworkOnly", "exhaustedRetriesGiveTheLastFailure");
		if (!ownRows.contains(row)) {
			assertThat(Differential.readDoc()).as(row).contains("`" + row + "`");
		}
	}

}
