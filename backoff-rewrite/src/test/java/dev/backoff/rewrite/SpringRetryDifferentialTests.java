package dev.backoff.rewrite;

import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openrewrite.Result;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exactness proved by comparison, not by reading: each row of docs/migrating.md's Spring Retry
 * table that migrates is a small bean, run with the same scripted failures under Spring Retry
 * and, after {@code MigrateSpringRetry} rewrote it, under Backoff ({@code @EnableBackoff}, no
 * Spring Retry on the class path). Both record every wait through their {@code Sleeper}
 * instead of sleeping. Compared: the attempts, what reaches the caller (value, or exception
 * type and message), the fallback's answer and the waits; a random row's waits are compared by
 * their bounds over many calls. A row the docs mark exact must agree; a row they mark not exact
 * must carry the recipe's comment and show the difference the comment names.
 */
class SpringRetryDifferentialTests {

	/**
	 * Calls of each random row, under each library: the chance that 200 uniform draws all miss
	 * the top tenth of their interval is 0.9^200, below 10^-9.
	 */
	private static final int RANDOM_CALLS = 200;

	private static final String SPRING_RETRY_RUNNER = Differential.RUNNER.formatted(
			"@org.springframework.retry.annotation.EnableRetry",
			"@Bean public org.springframework.retry.backoff.Sleeper sleeper() { return WAITS::add; }", "");

	/** The rows: the docs' test name, the annotations, the method's script, other members, and how they compare. */
	private static final List<Row> ROWS = List.of(
			Row.exact("defaultsAreOneSecondFixed", "@Retryable", Differential.failing(2)),
			Row.exact("maxAttempts", "@Retryable(maxAttempts = 5)", Differential.failing(9)),
			Row.exact("maxAttemptsExpressionPlaceholder", "@Retryable(maxAttemptsExpression = \"${quotes.attempts:5}\")",
					Differential.failing(9)),
			Row.exact("beanExpressionsAreCarried",
					"@Retryable(maxAttemptsExpression = \"#{@quoteSettings.attempts}\", backoff = @Backoff(delayExpression = \"#{@quoteSettings.delay}\"))",
					Differential.failing(9)),
			Row.exact("delayExpressionPlaceholder", "@Retryable(backoff = @Backoff(delayExpression = \"${quotes.delay:500}\"))",
					Differential.failing(9)),
			Row.exact("labelIsDropped", "@Retryable(label = \"quotes\")", Differential.failing(2)).noted(),
			Row.exact("fixedDelay", "@Retryable(backoff = @Backoff(delay = 250))", Differential.failing(9)),
			Row.exact("fixedDelayAsValue", "@Retryable(backoff = @Backoff(2000))", Differential.failing(3)),
			Row.exact("zeroDelayIsOneMillisecond", "@Retryable(backoff = @Backoff(delay = 0, multiplier = 0))", Differential.failing(9)),
			Row.exact("fixedDelayAboveOurDefaultCap", "@Retryable(backoff = @Backoff(delay = 45000))", Differential.failing(9)),
			Row.exact("exponentialIsCappedAtThirtySecondsByDefault",
					"@Retryable(maxAttempts = 9, backoff = @Backoff(delay = 1000, multiplier = 3))", Differential.failing(20)),
			Row.exact("exponentialWithMaxDelay",
					"@Retryable(maxAttempts = 6, backoff = @Backoff(delay = 200, multiplier = 1.5, maxDelay = 1000))",
					Differential.failing(20)),
			Row.exact("exponentialWithMaxDelayBelowDelayUsesTheDefaultCap",
					"@Retryable(maxAttempts = 5, backoff = @Backoff(delay = 2000, multiplier = 3, maxDelay = 1000))",
					Differential.failing(20)),
			Row.exact("multiplierAtMostOneIsFixed",
					"@Retryable(maxAttempts = 4, backoff = @Backoff(delay = 300, multiplier = 0.5))", Differential.failing(20)),
			Row.random("randomIsEqualJitter",
					"@Retryable(maxAttempts = 4, backoff = @Backoff(delay = 100, multiplier = 2, random = true))",
					Differential.failing(20), true),
			Row.random("uniformFromZeroIsFullJitter",
					"@Retryable(maxAttempts = 4, backoff = @Backoff(delay = 0, maxDelay = 1000))", Differential.failing(20), false),
			Row.random("uniformIsDecorrelatedJitter",
					"@Retryable(maxAttempts = 4, backoff = @Backoff(delay = 500, maxDelay = 3000))", Differential.failing(20), true),
			Row.exact("retryForAndNoRetryFor",
					"@Retryable(retryFor = IllegalStateException.class, noRetryFor = IllegalArgumentException.class)",
					"if (n < 2) throw new IllegalStateException(\"busy \" + n); throw new IllegalArgumentException(\"bad \" + n);")
				.noted(),
			Row.exact("valueAndExcludeAreTheOldNames",
					"@Retryable(value = java.io.IOException.class, exclude = java.io.FileNotFoundException.class)",
					"if (n < 2) throw new java.io.IOException(\"io \" + n); throw new java.io.FileNotFoundException(\"gone \" + n);")
				.noted(),
			Row.exact("retryForOnlyRetriesTheNamedTypes", "@Retryable(retryFor = java.io.IOException.class)",
					"if (n < 2) throw new java.io.IOException(\"io \" + n); throw new IllegalStateException(\"no \" + n);"),
			Row.differs("aRetriedFailureCausedByAnExcludedOneIsReported",
					"@Retryable(retryFor = RuntimeException.class, noRetryFor = IllegalArgumentException.class)",
					"throw new IllegalStateException(\"wrapped \" + n, new IllegalArgumentException(\"cause\"));"),
			Row.exact("includedSubclassOfAnExcludedClassIsReported",
					"@Retryable(include = java.io.FileNotFoundException.class, exclude = java.io.IOException.class)",
					"if (n < 2) throw new java.io.FileNotFoundException(\"gone \" + n); throw new java.io.EOFException(\"end \" + n);"),
			Row.exact("exceptionExpressionGetsAnExplicitRoot",
					"@Retryable(exceptionExpression = \"message.contains('busy')\")",
					"if (n < 3) throw new IllegalStateException(\"busy \" + n); throw new IllegalStateException(\"down \" + n);"),
			Row.exact("upperCaseSpelWordsStayOperators",
					"@Retryable(exceptionExpression = \"message.contains('busy') AND NOT message.contains('3')\")",
					Differential.failing(9)),
			Row.exact("recoverByShapeBecomesTheFallback", "@Retryable", Differential.failing(9),
					"@Recover public String cached(IllegalStateException failure) { return \"cached after \" + failure.getMessage(); }"),
			Row.exact("recoverByNameAndOverloadsByFailureType", "@Retryable(recover = \"cached\")",
					"if (n < 3) throw new IllegalStateException(\"busy \" + n); throw new IllegalArgumentException(\"bad\");",
					"@Recover public String cached(IllegalStateException failure) { return \"state \" + failure.getMessage(); }\n"
							+ "@Recover public String cached(IllegalArgumentException failure) { return \"argument \" + failure.getMessage(); }"),
			Row.exact("constantArithmeticStaysArithmetic",
					"@Retryable(maxAttempts = Limits.ATTEMPTS + 1, backoff = @Backoff(delay = Limits.DELAY + 50))",
					Differential.failing(20), "static final class Limits { static final int ATTEMPTS = 3; static final long DELAY = 200; }"),
			Row.exact("multiplierAtOrBelowZeroIsNoGrowth",
					"@Retryable(maxAttempts = 4, backoff = @Backoff(delay = 100, multiplier = -1))", Differential.failing(20)),
			Row.exact("multiplierExpressionOfZeroIsNoGrowth",
					"@Retryable(maxAttempts = 4, backoff = @Backoff(delay = 100, multiplierExpression = \"#{@quoteSettings.multiplier}\"))",
					Differential.failing(20)),
			Row.exact("retryCountReadsBecomeTheCurrentAttempt", "@Retryable",
					"int count = org.springframework.retry.support.RetrySynchronizationManager.getContext().getRetryCount();"
							+ " if (count < 2) throw new IllegalStateException(\"count \" + count); return \"count \" + count;"),
			Row.differs("asyncReturnTypesGainRetriesAndAreReported", "@Retryable", null,
					"public java.util.concurrent.CompletableFuture<String> call() { int n = CALLS.incrementAndGet();"
							+ " return n < 3 ? java.util.concurrent.CompletableFuture.failedFuture(new IllegalStateException(\"busy \" + n))"
							+ " : java.util.concurrent.CompletableFuture.completedFuture(\"ok \" + n); }"));

	private static Map<String, List<String>> springRetry;

	private static Map<String, List<String>> backoff;

	private static Map<String, String> migrated;

	@BeforeAll
	static void runEveryRowUnderBothLibraries(@TempDir Path dir) throws Exception {
		List<Path> classpath = InProcess.testClasspath();
		List<Path> withoutSpringRetry = InProcess.withoutSpringRetry(classpath);
		Path before = dir.resolve("before");
		Path after = dir.resolve("after");
		Files.createDirectories(before.resolve("rows"));
		Files.createDirectories(after.resolve("rows"));
		for (Row row : ROWS) {
			Files.writeString(before.resolve("rows/" + row.className() + ".java"), row.source());
		}
		migrated = migrate(before, classpath, after);
		Files.writeString(before.resolve("rows/RowRunner.java"), SPRING_RETRY_RUNNER);
		Files.writeString(after.resolve("rows/RowRunner.java"), Differential.BACKOFF_RUNNER);
		springRetry = run(before, classpath, dir.resolve("before-classes"));
		backoff = run(after, withoutSpringRetry, dir.resolve("after-classes"));
		System.out.printf("Backoff migration, differential: %d rows of docs/migrating.md's Spring Retry table run "
				+ "under Spring Retry and, migrated, under Backoff: %d exact, %d noted%n", ROWS.size(),
				ROWS.stream().filter((row) -> !row.notExact()).count(), ROWS.stream().filter(Row::notExact).count());
	}

	@Test
	void exactRowsBehaveAlikeUnderBothLibraries() {
		for (Row row : ROWS) {
			if (row.kind() == Kind.EXACT) {
				assertThat(backoff.get(row.name())).as(row.name()).isEqualTo(springRetry.get(row.name()));
				assertThat(migrated.get(row.name()).contains("not exact")).as(row.name() + " noted").isEqualTo(row.notExact());
			}
		}
	}

	@Test
	void randomRowsKeepTheAttemptsTheOutcomeAndTheBoundsOfTheirWaits() {
		for (Row row : ROWS) {
			if (row.kind() == Kind.RANDOM) {
				List<String> before = springRetry.get(row.name());
				List<String> after = backoff.get(row.name());
				assertThat(Differential.attemptsAndOutcomes(after)).as(row.name()).isEqualTo(Differential.attemptsAndOutcomes(before));
				long[][] beforeBounds = rounded(Differential.bounds(before));
				long[][] afterBounds = rounded(Differential.bounds(after));
				if (row.notExact()) {
					assertThat(migrated.get(row.name())).as(row.name()).contains("Backoff migration, not exact");
					assertThat(afterBounds).as(row.name() + ": the difference the comment names")
						.isNotEqualTo(beforeBounds);
				}
				else {
					// Both draw from the same interval: to the nearest tenth of it, the same bounds.
					assertThat(afterBounds).as(row.name()).isDeepEqualTo(beforeBounds);
				}
			}
		}
	}

	@Test
	void notedRowsCarryTheCommentAndDifferAsItSays() {
		for (Row row : ROWS) {
			if (row.kind() == Kind.DIFFERS) {
				assertThat(migrated.get(row.name())).as(row.name()).contains("Backoff migration, not exact");
				assertThat(backoff.get(row.name())).as(row.name()).isNotEqualTo(springRetry.get(row.name()));
			}
		}
		// Spring Retry reads the thrown type first: an IllegalStateException caused by an excluded type is retried.
		assertThat(springRetry.get("aRetriedFailureCausedByAnExcludedOneIsReported").get(0)).startsWith("3|");
		assertThat(backoff.get("aRetriedFailureCausedByAnExcludedOneIsReported").get(0)).startsWith("1|");
		// A failed CompletableFuture: returned as it is by Spring Retry, retried by Backoff.
		assertThat(springRetry.get("asyncReturnTypesGainRetriesAndAreReported").get(0)).startsWith("1|threw");
		assertThat(backoff.get("asyncReturnTypesGainRetriesAndAreReported").get(0)).startsWith("3|value ok 3");
	}

	@Test
	void everyRowIsATestOfTheDocsOrOneOfItsOwn() {
		String doc = Differential.readDoc();
		for (Row row : ROWS) {
			if (!row.name().equals("retryForOnlyRetriesTheNamedTypes")
					&& !row.name().equals("multiplierExpressionOfZeroIsNoGrowth")) {
				assertThat(doc).as(row.name()).contains("`" + row.name() + "`");
			}
		}
	}

	/** @return the bounds to the nearest 250 ms: the top tenth of a 1 s interval rounds to its end, as 0 to 100 ms to its start */
	private static long[][] rounded(long[][] bounds) {
		return java.util.Arrays.stream(bounds)
			.map((pair) -> new long[] { Math.round(pair[0] / 250.0), Math.round(pair[1] / 250.0) })
			.toArray(long[][]::new);
	}

	/** @return each row's migrated source, by row name; the sources written under {@code to} */
	private static Map<String, String> migrate(Path from, List<Path> classpath, Path to) throws Exception {
		Map<Path, String> printed = new LinkedHashMap<>();
		for (Result result : InProcess.migrate(from, classpath)) {
			if (result.getAfter() != null) {
				printed.put(result.getAfter().getSourcePath(), result.getAfter().printAll());
			}
		}
		Map<String, String> byRow = new LinkedHashMap<>();
		for (Row row : ROWS) {
			String source = printed.get(Path.of("rows/" + row.className() + ".java"));
			assertThat(source).as(row.name()).doesNotContain("org.springframework.retry.annotation");
			Files.writeString(to.resolve("rows/" + row.className() + ".java"), source);
			byRow.put(row.name(), source);
		}
		return byRow;
	}

	/** Compiles the rows and the runner, and runs every row (a random one many times) in a loader of its own. */
	private static Map<String, List<String>> run(Path sources, List<Path> classpath, Path out) throws Exception {
		InProcess.compile(InProcess.javaSources(sources), classpath, out);
		Map<String, List<String>> results = new LinkedHashMap<>();
		Thread thread = Thread.currentThread();
		ClassLoader previous = thread.getContextClassLoader();
		try (URLClassLoader loader = InProcess.loader(out, classpath)) {
			thread.setContextClassLoader(loader);
			@SuppressWarnings("unchecked")
			Function<String, String> runner = (Function<String, String>) loader.loadClass("rows.RowRunner")
				.getConstructor()
				.newInstance();
			for (Row row : ROWS) {
				int calls = (row.kind() == Kind.RANDOM) ? RANDOM_CALLS : 1;
				results.put(row.name(), List.of(runner.apply("rows." + row.className() + " " + calls).split("\n")));
			}
		}
		finally {
			thread.setContextClassLoader(previous);
		}
		return results;
	}

	enum Kind {

		/** Same attempts, outcome and waits. */
		EXACT,

		/** Same attempts and outcome; waits drawn at random, compared by their bounds. */
		RANDOM,

		/** Noted by the recipe: the runs differ as the note says. */
		DIFFERS

	}

	record Row(String name, Kind kind, String annotations, @org.jspecify.annotations.Nullable String script,
			String members, boolean notExact) {

		static Row exact(String name, String annotations, String script) {
			return new Row(name, Kind.EXACT, annotations, script, "", false);
		}

		static Row exact(String name, String annotations, String script, String members) {
			return new Row(name, Kind.EXACT, annotations, script, members, false);
		}

		static Row random(String name, String annotations, String script, boolean notExact) {
			return new Row(name, Kind.RANDOM, annotations, script, "", notExact);
		}

		static Row differs(String name, String annotations, String script) {
			return new Row(name, Kind.DIFFERS, annotations, script, "", true);
		}

		static Row differs(String name, String annotations, @org.jspecify.annotations.Nullable String script,
				String members) {
			return new Row(name, Kind.DIFFERS, annotations, script, members, true);
		}

		/** The same behaviour, with a note the recipe writes though the compared runs agree. */
		Row noted() {
			return new Row(this.name, this.kind, this.annotations, this.script, this.members, true);
		}

		String className() {
			return Character.toUpperCase(this.name.charAt(0)) + this.name.substring(1);
		}

		String source() {
			String call = (this.script != null) ? "public String call() throws Exception { int n = CALLS.incrementAndGet(); "
					+ this.script + " }" : "";
			String imports = "import org.springframework.retry.annotation.Retryable;\n"
					+ (this.annotations.contains("@Backoff(") ? "import org.springframework.retry.annotation.Backoff;\n" : "")
					+ (this.members.contains("@Recover") ? "import org.springframework.retry.annotation.Recover;\n" : "");
			return """
					package rows;

					import java.util.concurrent.atomic.AtomicInteger;

					%s
					public class %s {

						public static final AtomicInteger CALLS = new AtomicInteger();

						%s
						%s

						%s

					}
					""".formatted(imports, className(), this.annotations, call.isEmpty() ? this.members : call,
					call.isEmpty() ? "" : this.members);
		}

	}

}
