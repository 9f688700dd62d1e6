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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exactness proved by comparison, not by reading: each row of docs/migrating.md's Spring Retry
 * table that migrates is a small bean, run with the same scripted failures under Spring Retry
 * and, after {@code MigrateSpringRetry} rewrote it, under Backoff ({@code @EnableBackoff}, no
 * Spring Retry on the class path). Both record every wait through their {@code Sleeper}
 * instead of sleeping. Compared: the attempts, what reaches the caller (value, or exception
 * type and message), the fallback's answer and the waits; a random row's waits are compared by
 * their bounds over many calls. A row the docs mark exact must agree; a row they mark not exact
 * must carry the recipe's comment and show the difference the comment names. The rows run in
 * {@link DifferentialRun}, with those of the other differential tests.
 */
class SpringRetryDifferentialTests {

	/**
	 * Calls of each random row, under each library: the chance that 200 uniform draws all miss
	 * the top tenth of their interval is 0.9^200, below 10^-9.
	 */
	private static final int RANDOM_CALLS = 200;

	/** The rows: the docs' test name, the annotations, the method's script, other members, and how they compare. */
	private static final List<Row> ROWS = List.of(
			exact("defaultsAreOneSecondFixed", "@Retryable", Differential.failing(2)),
			exact("maxAttempts", "@Retryable(maxAttempts = 5)", Differential.failing(9)),
			exact("maxAttemptsExpressionPlaceholder", "@Retryable(maxAttemptsExpression = \"${quotes.attempts:5}\")",
					Differential.failing(9)),
			exact("beanExpressionsAreCarried",
					"@Retryable(maxAttemptsExpression = \"#{@quoteSettings.attempts}\", backoff = @Backoff(delayExpression = \"#{@quoteSettings.delay}\"))",
					Differential.failing(9)),
			exact("delayExpressionPlaceholder", "@Retryable(backoff = @Backoff(delayExpression = \"${quotes.delay:500}\"))",
					Differential.failing(9)),
			exact("labelIsDropped", "@Retryable(label = \"quotes\")", Differential.failing(2)).withNote(),
			exact("fixedDelay", "@Retryable(backoff = @Backoff(delay = 250))", Differential.failing(9)),
			exact("fixedDelayAsValue", "@Retryable(backoff = @Backoff(2000))", Differential.failing(3)),
			exact("zeroDelayIsOneMillisecond", "@Retryable(backoff = @Backoff(delay = 0, multiplier = 0))", Differential.failing(9)),
			exact("fixedDelayAboveOurDefaultCap", "@Retryable(backoff = @Backoff(delay = 45000))", Differential.failing(9)),
			exact("exponentialIsCappedAtThirtySecondsByDefault",
					"@Retryable(maxAttempts = 9, backoff = @Backoff(delay = 1000, multiplier = 3))", Differential.failing(20)),
			exact("exponentialWithMaxDelay",
					"@Retryable(maxAttempts = 6, backoff = @Backoff(delay = 200, multiplier = 1.5, maxDelay = 1000))",
					Differential.failing(20)),
			exact("exponentialWithMaxDelayBelowDelayUsesTheDefaultCap",
					"@Retryable(maxAttempts = 5, backoff = @Backoff(delay = 2000, multiplier = 3, maxDelay = 1000))",
					Differential.failing(20)),
			exact("multiplierAtMostOneIsFixed",
					"@Retryable(maxAttempts = 4, backoff = @Backoff(delay = 300, multiplier = 0.5))", Differential.failing(20)),
			random("randomIsEqualJitter",
					"@Retryable(maxAttempts = 4, backoff = @Backoff(delay = 100, multiplier = 2, random = true))",
					Differential.failing(20), true),
			random("uniformFromZeroIsFullJitter",
					"@Retryable(maxAttempts = 4, backoff = @Backoff(delay = 0, maxDelay = 1000))", Differential.failing(20), false),
			random("uniformIsDecorrelatedJitter",
					"@Retryable(maxAttempts = 4, backoff = @Backoff(delay = 500, maxDelay = 3000))", Differential.failing(20), true),
			exact("retryForAndNoRetryFor",
					"@Retryable(retryFor = IllegalStateException.class, noRetryFor = IllegalArgumentException.class)",
					"if (n < 2) throw new IllegalStateException(\"busy \" + n); throw new IllegalArgumentException(\"bad \" + n);")
				.withNote(),
			exact("valueAndExcludeAreTheOldNames",
					"@Retryable(value = java.io.IOException.class, exclude = java.io.FileNotFoundException.class)",
					"if (n < 2) throw new java.io.IOException(\"io \" + n); throw new java.io.FileNotFoundException(\"gone \" + n);")
				.withNote(),
			exact("retryForOnlyRetriesTheNamedTypes", "@Retryable(retryFor = java.io.IOException.class)",
					"if (n < 2) throw new java.io.IOException(\"io \" + n); throw new IllegalStateException(\"no \" + n);"),
			differs("aRetriedFailureCausedByAnExcludedOneIsReported",
					"@Retryable(retryFor = RuntimeException.class, noRetryFor = IllegalArgumentException.class)",
					"throw new IllegalStateException(\"wrapped \" + n, new IllegalArgumentException(\"cause\"));"),
			exact("includedSubclassOfAnExcludedClassIsReported",
					"@Retryable(include = java.io.FileNotFoundException.class, exclude = java.io.IOException.class)",
					"if (n < 2) throw new java.io.FileNotFoundException(\"gone \" + n); throw new java.io.EOFException(\"end \" + n);"),
			exact("exceptionExpressionGetsAnExplicitRoot",
					"@Retryable(exceptionExpression = \"message.contains('busy')\")",
					"if (n < 3) throw new IllegalStateException(\"busy \" + n); throw new IllegalStateException(\"down \" + n);"),
			exact("upperCaseSpelWordsStayOperators",
					"@Retryable(exceptionExpression = \"message.contains('busy') AND NOT message.contains('3')\")",
					Differential.failing(9)),
			exact("recoverByShapeBecomesTheFallback", "@Retryable", Differential.failing(9),
					"@Recover public String cached(IllegalStateException failure) { return \"cached after \" + failure.getMessage(); }"),
			exact("recoverByNameAndOverloadsByFailureType", "@Retryable(recover = \"cached\")",
					"if (n < 3) throw new IllegalStateException(\"busy \" + n); throw new IllegalArgumentException(\"bad\");",
					"@Recover public String cached(IllegalStateException failure) { return \"state \" + failure.getMessage(); }\n"
							+ "@Recover public String cached(IllegalArgumentException failure) { return \"argument \" + failure.getMessage(); }"),
			exact("constantArithmeticStaysArithmetic",
					"@Retryable(maxAttempts = Limits.ATTEMPTS + 1, backoff = @Backoff(delay = Limits.DELAY + 50))",
					Differential.failing(20), "static final class Limits { static final int ATTEMPTS = 3; static final long DELAY = 200; }"),
			exact("multiplierAtOrBelowZeroIsNoGrowth",
					"@Retryable(maxAttempts = 4, backoff = @Backoff(delay = 100, multiplier = -1))", Differential.failing(20)),
			exact("multiplierExpressionOfZeroIsNoGrowth",
					"@Retryable(maxAttempts = 4, backoff = @Backoff(delay = 100, multiplierExpression = \"#{@quoteSettings.multiplier}\"))",
					Differential.failing(20)),
			exact("retryCountReadsBecomeTheCurrentAttempt", "@Retryable",
					"int count = org.springframework.retry.support.RetrySynchronizationManager.getContext().getRetryCount();"
							+ " if (count < 2) throw new IllegalStateException(\"count \" + count); return \"count \" + count;"),
			differs("asyncReturnTypesGainRetriesAndAreReported", "@Retryable", null,
					"public java.util.concurrent.CompletableFuture<String> call() { int n = CALLS.incrementAndGet();"
							+ " return n < 3 ? java.util.concurrent.CompletableFuture.failedFuture(new IllegalStateException(\"busy \" + n))"
							+ " : java.util.concurrent.CompletableFuture.completedFuture(\"ok \" + n); }"));

	static final Subject SUBJECT = new Subject("springretry", "dev.backoff.rewrite.MigrateSpringRetry",
			Differential.SPRING_RETRY_RUNNER, RANDOM_CALLS, List.of(new Side(ROWS, Differential.BACKOFF_RUNNER, false)));

	private static Map<String, List<String>> springRetry;

	private static Map<String, List<String>> backoff;

	private static Map<String, String> migrated;

	private static Runs runs;

	@BeforeAll
	static void runEveryRowUnderBothLibraries() throws Exception {
		runs = DifferentialRun.of(SUBJECT);
		springRetry = runs.before();
		backoff = runs.after();
		migrated = runs.migrated();
		System.out.printf("Backoff migration, differential: %d rows of docs/migrating.md's Spring Retry table run "
				+ "under Spring Retry and, migrated, under Backoff: %d exact, %d noted%n", ROWS.size(),
				ROWS.stream().filter((row) -> !row.noted()).count(), ROWS.stream().filter(Row::noted).count());
	}

	static Stream<String> rows() {
		return ROWS.stream().map(Row::name);
	}

	static Stream<String> exactRows() {
		return rows(Kind.EXACT);
	}

	static Stream<String> randomRows() {
		return rows(Kind.RANDOM);
	}

	static Stream<String> differingRows() {
		return rows(Kind.DIFFERS);
	}

	private static Stream<String> rows(Kind kind) {
		return ROWS.stream().filter((row) -> row.kind() == kind).map(Row::name);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("rows")
	void migratedRowsLeaveNoSpringRetryAnnotation(String row) {
		assertThat(migrated.get(row)).as(row).doesNotContain("org.springframework.retry.annotation");
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("exactRows")
	void exactRowsBehaveAlikeUnderBothLibraries(String row) {
		runs.assertAlike(SUBJECT.row(row), "not exact");
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("randomRows")
	void randomRowsKeepTheAttemptsTheOutcomeAndTheBoundsOfTheirWaits(String row) {
		List<String> before = springRetry.get(row);
		List<String> after = backoff.get(row);
		assertThat(Differential.attemptsAndOutcomes(after)).as(row).isEqualTo(Differential.attemptsAndOutcomes(before));
		long[][] beforeBounds = rounded(Differential.bounds(before));
		long[][] afterBounds = rounded(Differential.bounds(after));
		if (SUBJECT.row(row).noted()) {
			assertThat(migrated.get(row)).as(row).contains("Backoff migration, not exact");
			assertThat(afterBounds).as(row + ": the difference the comment names").isNotEqualTo(beforeBounds);
		}
		else {
			// Both draw from the same interval: to the nearest tenth of it, the same bounds.
			assertThat(afterBounds).as(row).isDeepEqualTo(beforeBounds);
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("differingRows")
	void notedRowsCarryTheCommentAndDiffer(String row) {
		assertThat(migrated.get(row)).as(row).contains("Backoff migration, not exact");
		assertThat(backoff.get(row)).as(row).isNotEqualTo(springRetry.get(row));
	}

	@Test
	void notedRowsDifferAsTheCommentSays() {
		// Spring Retry reads the thrown type first: an IllegalStateException caused by an excluded type is retried.
		assertThat(springRetry.get("aRetriedFailureCausedByAnExcludedOneIsReported").get(0)).startsWith("3|");
		assertThat(backoff.get("aRetriedFailureCausedByAnExcludedOneIsReported").get(0)).startsWith("1|");
		// A failed CompletableFuture: returned as it is by Spring Retry, retried by Backoff.
		assertThat(springRetry.get("asyncReturnTypesGainRetriesAndAreReported").get(0)).startsWith("1|threw");
		assertThat(backoff.get("asyncReturnTypesGainRetriesAndAreReported").get(0)).startsWith("3|value ok 3");
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("rows")
	void everyRowIsATestOfTheDocsOrOneOfItsOwn(String row) {
		if (!row.equals("retryForOnlyRetriesTheNamedTypes") && !row.equals("multiplierExpressionOfZeroIsNoGrowth")) {
			assertThat(Differential.readDoc()).as(row).contains("`" + row + "`");
		}
	}

	/** @return the bounds to the nearest 250 ms: the top tenth of a 1 s interval rounds to its end, as 0 to 100 ms to its start */
	private static long[][] rounded(long[][] bounds) {
		return java.util.Arrays.stream(bounds)
			.map((pair) -> new long[] { Math.round(pair[0] / 250.0), Math.round(pair[1] / 250.0) })
			.toArray(long[][]::new);
	}

	private static Row exact(String name, String annotations, String script) {
		return Differential.springRetryRow(name, Kind.EXACT, false, annotations, script, "");
	}

	private static Row exact(String name, String annotations, String script, String members) {
		return Differential.springRetryRow(name, Kind.EXACT, false, annotations, script, members);
	}

	private static Row random(String name, String annotations, String script, boolean noted) {
		return Differential.springRetryRow(name, Kind.RANDOM, noted, annotations, script, "");
	}

	private static Row differs(String name, String annotations, String script) {
		return Differential.springRetryRow(name, Kind.DIFFERS, true, annotations, script, "");
	}

	private static Row differs(String name, String annotations, @org.jspecify.annotations.Nullable String script,
			String members) {
		return Differential.springRetryRow(name, Kind.DIFFERS, true, annotations, script, members);
	}

}
