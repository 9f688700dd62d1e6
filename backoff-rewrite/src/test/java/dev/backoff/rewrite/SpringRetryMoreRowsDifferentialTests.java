package dev.backoff.rewrite;

import java.util.LinkedHashMap;
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
 * The rows of docs/migrating.md's Spring Retry table that {@link SpringRetryDifferentialTests}
 * does not run, compared the same way (with {@link Differential}, which also compares which
 * attempt's exception instance reaches the caller): the expression rows, the recovery rows
 * across types (interface, superclass, supertype), the type-level annotation, {@code Mono}, and
 * the rows the recipe leaves whole. A row left whole runs, after the recipe, with Spring Retry
 * still on the class path and both {@code @EnableRetry} and {@code @EnableBackoff}, as the
 * recipe leaves such a project: it must keep its behaviour and carry the recipe's comment.
 * Spring Retry's waits are recorded by a {@code Sleeper} bean, which {@code @EnableRetry}'s
 * interceptor takes from the context for every back-off policy it builds. The rows run in
 * {@link DifferentialRun}, with those of the other differential tests.
 */
class SpringRetryMoreRowsDifferentialTests {

	/** What the recipe leaves of a project with code left on Spring Retry: both libraries switched on. */
	private static final String BOTH_RUNNER = Differential.RUNNER.formatted(
			"@org.springframework.retry.annotation.EnableRetry @dev.backoff.spring.EnableBackoff",
			"@Bean public org.springframework.retry.backoff.Sleeper springRetrySleeper() { return WAITS::add; }\n"
					+ "@Bean public dev.backoff.Sleeper backoffSleeper() { return (delay) -> WAITS.add(delay.toMillis()); }",
			"");

	private static final String RECOVER = "@Recover public String cached(IllegalStateException failure) { return \"cached after \" + failure.getMessage(); }";

	/** Rows that migrate: run after the recipe without Spring Retry. */
	private static final List<Row> MIGRATED = List.of(
			row("maxAttemptsExpressionPlaceholder", Kind.EXACT, false,
					"@Retryable(maxAttemptsExpression = \"${quotes.attempts:5}\", backoff = @Backoff(delay = 10))", failing(9), ""),
			row("beanExpressionsAreCarried", Kind.EXACT, false,
					"@Retryable(maxAttemptsExpression = \"#{@quoteSettings.retries}\", backoff = @Backoff(delayExpression = \"#{300}\"))",
					failing(9), ""),
			row("delayExpressionPlaceholder", Kind.EXACT, false,
					"@Retryable(backoff = @Backoff(delayExpression = \"${quotes.delay:250}\"))", failing(9), ""),
			row("upperCaseSpelOrStaysAnOperator", Kind.EXACT, false,
					"@Retryable(maxAttempts = 5, exceptionExpression = \"message.contains('busy') OR message.contains('slow')\", backoff = @Backoff(delay = 10))",
					"if (n < 2) throw RowRunner.thrown(new IllegalStateException(\"busy \" + n));"
							+ " if (n < 3) throw RowRunner.thrown(new IllegalStateException(\"slow \" + n));"
							+ " throw RowRunner.thrown(new IllegalStateException(\"down \" + n));", ""),
			row("labelIsDropped", Kind.EXACT, true, "@Retryable(label = \"quotes\", backoff = @Backoff(delay = 10))",
					failing(9), ""),
			row("exhaustedRetriesGiveTheLastFailure", Kind.EXACT, false, "@Retryable(backoff = @Backoff(delay = 10))",
					"throw RowRunner.thrown(new java.io.UncheckedIOException(\"down \" + n, new java.io.IOException(\"io\")));", ""),
			row("recoverGetsTheLastFailure", Kind.EXACT, false, "@Retryable(backoff = @Backoff(delay = 10))", failing(9),
					RECOVER),
			row("noRetryForAloneMatchesCauses", Kind.EXACT, false,
					"@Retryable(noRetryFor = IllegalArgumentException.class, backoff = @Backoff(delay = 10))",
					"if (n < 2) throw RowRunner.thrown(new IllegalStateException(\"busy \" + n));"
							+ " throw RowRunner.thrown(new IllegalStateException(\"wrapped \" + n, new IllegalArgumentException(\"bad\")));",
					""),
			row("errorsAreRetriedBySpringRetryOnly", Kind.DIFFERS, false,
					"@Retryable(noRetryFor = IllegalArgumentException.class, backoff = @Backoff(delay = 10))",
					"if (n < 9) throw RowRunner.thrown(new AssertionError(\"broken \" + n)); return \"ok \" + n;", ""),
			row("recoverReturningASupertypeIsReported", Kind.DIFFERS, true, "@Retryable(backoff = @Backoff(delay = 10))",
					failing(9),
					"@Recover public Object cached(IllegalStateException failure) { return \"cached after \" + failure.getMessage(); }"),
			new Row("typeLevelRetryable", Kind.EXACT, false, Map.of("TypeLevelRetryable", """
					package rows;

					import java.util.concurrent.atomic.AtomicInteger;
					import org.springframework.retry.annotation.Backoff;
					import org.springframework.retry.annotation.Retryable;

					@Retryable(maxAttempts = 4, backoff = @Backoff(delay = 10))
					public class TypeLevelRetryable {

						public static final AtomicInteger CALLS = new AtomicInteger();

						public String call() throws Exception { int n = CALLS.incrementAndGet(); %s }

					}
					""".formatted(failing(9)))),
			files("interfaceDeclarationsAreMigratedWhereTheyStand", Kind.EXACT, """
					package rows;

					import java.util.concurrent.atomic.AtomicInteger;

					public class InterfaceDeclarationsAreMigratedWhereTheyStand implements QuoteApi {

						public static final AtomicInteger CALLS = new AtomicInteger();

						@Override
						public String call() throws Exception { int n = CALLS.incrementAndGet(); %s }

						@Override
						public String cached(IllegalStateException failure) { return "cached after " + failure.getMessage(); }

					}
					""".formatted(failing(9)), "QuoteApi", """
					package rows;

					import org.springframework.retry.annotation.Backoff;
					import org.springframework.retry.annotation.Recover;
					import org.springframework.retry.annotation.Retryable;

					public interface QuoteApi {

						@Retryable(maxAttempts = 2, backoff = @Backoff(delay = 10))
						String call() throws Exception;

						@Recover
						String cached(IllegalStateException failure);

					}
					"""),
			// 1 ms: Backoff waits between a Mono's attempts on Reactor's timer, not through the sleeper.
			row("monoReturnTypesGainRetriesAndAreReported", Kind.DIFFERS, true, "@Retryable(backoff = @Backoff(delay = 1))",
					null,
					"public reactor.core.publisher.Mono<String> call() { return reactor.core.publisher.Mono.fromCallable(() -> {"
							+ " int n = CALLS.incrementAndGet(); " + failing(3) + " }); }"));

	/**
	 * Rows that differed where the docs said they were exact, found by this comparison and fixed
	 * since; run with {@link #MIGRATED}, checked by their own tests.
	 */
	private static final List<Row> DEFECTS = List.of(
			row("beanExpressionsWithAMultiplierAreNoted", Kind.EXACT, true,
					"@Retryable(maxAttempts = 6, backoff = @Backoff(delayExpression = \"#{100}\", multiplierExpression = \"#{2}\", maxDelayExpression = \"#{1000}\"))",
					failing(9), ""),
			row("multiplierPlaceholderOfAnInteger", Kind.EXACT, true,
					"@Retryable(maxAttempts = 6, backoff = @Backoff(delay = 100, multiplierExpression = \"${quotes.multiplier:2}\", maxDelay = 1000))",
					failing(9), ""),
			files("recoverInheritedFromASuperclassBecomesTheFallback", Kind.EXACT, """
					package rows;

					import java.util.concurrent.atomic.AtomicInteger;
					import org.springframework.retry.annotation.Backoff;
					import org.springframework.retry.annotation.Retryable;

					public class RecoverInheritedFromASuperclassBecomesTheFallback extends BaseQuotes {

						public static final AtomicInteger CALLS = new AtomicInteger();

						@Retryable(backoff = @Backoff(delay = 10))
						public String call() throws Exception { int n = CALLS.incrementAndGet(); %s }

					}
					""".formatted(failing(9)), "BaseQuotes", """
					package rows;

					import org.springframework.retry.annotation.Recover;

					public class BaseQuotes {

						@Recover
						public String cached(IllegalStateException failure) { return "cached after " + failure.getMessage(); }

					}
					"""));

	/** Rows the recipe leaves on Spring Retry: run after the recipe with both libraries. */
	private static final List<Row> LEFT_WHOLE = List.of(
			row("expressionsEvaluatedPerRetryAreLeftWhole", Kind.EXACT, false,
					"@Retryable(maxAttemptsExpression = \"2 + 2\", backoff = @Backoff(delay = 10))", failing(9), ""),
			row("aDelayKnownOnlyAtStartUpBesideAMaxDelayWithoutAMultiplierIsLeftWhole", Kind.EXACT, false,
					"@Retryable(maxAttempts = 4, backoff = @Backoff(delayExpression = \"${quotes.delay:100}\", maxDelay = 100))",
					failing(9), ""),
			row("recoverMethodsOfDifferentNamesAreLeft", Kind.EXACT, false, "@Retryable(backoff = @Backoff(delay = 10))",
					"if (n < 3) throw RowRunner.thrown(new IllegalStateException(\"busy \" + n)); throw RowRunner.thrown(new IllegalArgumentException(\"bad\"));",
					"@Recover public String state(IllegalStateException failure) { return \"state \" + failure.getMessage(); }\n"
							+ "@Recover public String runtime(RuntimeException failure) { return \"runtime \" + failure.getMessage(); }"),
			// Left whole today (docs/migrating.md); migrated or left, it must behave alike and say which.
			row("aConstantDelayBesideAMaxDelayWithoutAMultiplier", Kind.EXACT, false,
					"@Retryable(maxAttempts = 4, backoff = @Backoff(delay = Limits.DELAY, maxDelay = 50))", failing(9),
					"static final class Limits { static final long DELAY = 100; }"),
			row("circuitBreakerIsLeft", Kind.EXACT, false, "@CircuitBreaker(maxAttempts = 2)", failing(9), ""),
			files("composedAnnotationIsLeftWhole", Kind.EXACT, """
					package rows;

					import java.util.concurrent.atomic.AtomicInteger;

					public class ComposedAnnotationIsLeftWhole {

						public static final AtomicInteger CALLS = new AtomicInteger();

						@RemoteRetry(attempts = 4)
						public String call() throws Exception { int n = CALLS.incrementAndGet(); %s }

					}
					""".formatted(failing(9)), "RemoteRetry", """
					package rows;

					import java.lang.annotation.Retention;
					import java.lang.annotation.RetentionPolicy;

					import org.springframework.core.annotation.AliasFor;
					import org.springframework.retry.annotation.Backoff;
					import org.springframework.retry.annotation.Retryable;

					@Retention(RetentionPolicy.RUNTIME)
					@Retryable(backoff = @Backoff(delay = 10))
					public @interface RemoteRetry {

						@AliasFor(annotation = Retryable.class, attribute = "maxAttempts")
						int attempts() default 3;

					}
					"""));

	/** Migrated rows run without Spring Retry; those left whole with both libraries, as the recipe leaves the project. */
	static final Subject SUBJECT = new Subject("more", "dev.backoff.rewrite.MigrateSpringRetry",
			Differential.SPRING_RETRY_RUNNER, 1,
			List.of(new Side(Stream.concat(MIGRATED.stream(), DEFECTS.stream()).toList(), Differential.BACKOFF_RUNNER, false),
					new Side(LEFT_WHOLE, BOTH_RUNNER, true)));

	private static Map<String, List<String>> springRetry;

	private static Map<String, List<String>> backoff;

	private static Map<String, String> migrated;

	private static Runs runs;

	private static Row row(String name, Kind kind, boolean noted, String annotations,
			@org.jspecify.annotations.Nullable String script, String members) {
		return Differential.springRetryRow(name, kind, noted, annotations, script, members);
	}

	private static Row files(String name, Kind kind, String bean, String otherName, String other) {
		Map<String, String> files = new LinkedHashMap<>();
		files.put(Row.className(name), bean);
		files.put(otherName, other);
		return new Row(name, kind, false, files);
	}

	@BeforeAll
	static void runEveryRowUnderBothLibraries() throws Exception {
		runs = DifferentialRun.of(SUBJECT);
		springRetry = runs.before();
		backoff = runs.after();
		migrated = runs.migrated();
		List<Row> compared = Stream.concat(MIGRATED.stream(), LEFT_WHOLE.stream()).toList();
		long equal = compared.stream().filter((row) -> row.kind() == Kind.EXACT).count();
		System.out.printf("Backoff migration, differential: %d more rows of docs/migrating.md's Spring Retry table run "
				+ "under Spring Retry and, after the recipe, under Backoff (%d left whole by the recipe): %d equal (%d of "
				+ "them with the recipe's note), %d differ (%d noted, %d the documented Error difference); %d rows of "
				+ "defects found here, checked by their own tests%n", compared.size(), LEFT_WHOLE.size(), equal,
				compared.stream().filter((row) -> row.kind() == Kind.EXACT && row.noted()).count(), compared.size() - equal,
				compared.stream().filter((row) -> row.kind() != Kind.EXACT && row.noted()).count(),
				compared.stream().filter((row) -> row.kind() != Kind.EXACT && !row.noted()).count(), DEFECTS.size());
		SUBJECT.rows().forEach((row) -> System.out.printf("  %s: %s | %s%n", row.name(), springRetry.get(row.name()).get(0),
				backoff.get(row.name()).get(0)));
	}

	static Stream<String> migratedRows() {
		return Stream.concat(MIGRATED.stream(), DEFECTS.stream()).map(Row::name);
	}

	static Stream<String> rowsLeftWhole() {
		return LEFT_WHOLE.stream().map(Row::name);
	}

	static Stream<String> exactRows() {
		return comparedRows().filter((row) -> row.kind() == Kind.EXACT).map(Row::name);
	}

	static Stream<String> notedDifferingRows() {
		return MIGRATED.stream().filter((row) -> row.kind() == Kind.DIFFERS && row.noted()).map(Row::name);
	}

	static Stream<String> rows() {
		return SUBJECT.rows().stream().map(Row::name);
	}

	/** The rows compared with the docs' claims; those of {@link #DEFECTS} have tests of their own. */
	private static Stream<Row> comparedRows() {
		return Stream.concat(MIGRATED.stream(), LEFT_WHOLE.stream());
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("migratedRows")
	void migratedRowsLeaveNoSpringRetryAnnotation(String row) {
		assertThat(migrated.get(row)).as(row).doesNotContain("org.springframework.retry.annotation").contains("@Backoff(");
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("rowsLeftWhole")
	void rowsLeftWholeCarryTheCommentAndKeepSpringRetry(String row) {
		if (row.equals("aConstantDelayBesideAMaxDelayWithoutAMultiplier")) {
			assertThat(migrated.get(row)).contains("// Backoff migration");
		}
		else {
			assertThat(migrated.get(row)).as(row)
				.contains("// Backoff migration: left on")
				.contains("org.springframework.retry.annotation");
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("exactRows")
	void exactRowsBehaveAlikeUnderBothLibraries(String row) {
		runs.assertAlike(SUBJECT.row(row), "Backoff migration, not exact");
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("notedDifferingRows")
	void notedRowsCarryTheComment(String row) {
		assertThat(migrated.get(row)).as(row).contains("Backoff migration, not exact");
	}

	@Test
	void notedRowsDifferAsTheCommentSays() {
		// A failed Mono: returned as it is by Spring Retry, retried by Backoff.
		assertThat(springRetry.get("monoReturnTypesGainRetriesAndAreReported")).containsExactly("1|threw java.lang.IllegalStateException: busy 1 #1|[]");
		assertThat(backoff.get("monoReturnTypesGainRetriesAndAreReported").get(0)).startsWith("3|value ok 3|");
		// A fallback returning Object: Spring Retry calls it, Backoff refuses it at start-up.
		assertThat(springRetry.get("recoverReturningASupertypeIsReported")).containsExactly("3|value cached after busy 3|[10, 10]");
		assertThat(backoff.get("recoverReturningASupertypeIsReported").get(0)).startsWith("failed to start");
	}

	@Test
	void anErrorIsRetriedBySpringRetryAndNotByBackoffAsTheDocsSay() {
		assertThat(springRetry.get("errorsAreRetriedBySpringRetryOnly")).containsExactly("3|threw java.lang.AssertionError: broken 3 #3|[10, 10]");
		assertThat(backoff.get("errorsAreRetriedBySpringRetryOnly")).containsExactly("1|threw java.lang.AssertionError: broken 1 #1|[]");
	}

	@Test
	void aMultiplierExpressionOfAnIntegerStartsAndGrowsAsUnderSpringRetry() {
		for (String name : List.of("beanExpressionsWithAMultiplierAreNoted", "multiplierPlaceholderOfAnInteger")) {
			assertThat(springRetry.get(name)).as(name)
				.containsExactly("6|threw java.lang.IllegalStateException: busy 6 #6|[100, 200, 400, 800, 1000]");
			assertThat(backoff.get(name)).as(name).isEqualTo(springRetry.get(name));
			assertThat(migrated.get(name)).as(name).contains("Backoff migration, not exact");
		}
	}

	@Test
	void aRecoverMethodOfASuperclassIsNotFoundBySpringRetryAndTheMigrationSaysSo() {
		String name = "recoverInheritedFromASuperclassBecomesTheFallback";
		assertThat(springRetry.get(name))
			.containsExactly("3|threw org.springframework.retry.ExhaustedRetryException: Cannot locate recovery method #new|[10, 10]");
		assertThat(backoff.get(name)).containsExactly("3|value cached after busy 3|[10, 10]");
		assertThat(migrated.get(name)).contains("Backoff migration, not exact");
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("rows")
	void everyRowIsATestOfTheDocsOrOneOfItsOwn(String row) {
		List<String> ownRows = List.of("beanExpressionsWithAMultiplierAreNoted", "exhaustedRetriesGiveTheLastFailure",
				"recoverGetsTheLastFailure", "noRetryForAloneMatchesCauses", "errorsAreRetriedBySpringRetryOnly",
				"monoReturnTypesGainRetriesAndAreReported", "multiplierPlaceholderOfAnInteger",
				"upperCaseSpelOrStaysAnOperator", "aConstantDelayBesideAMaxDelayWithoutAMultiplier");
		if (!ownRows.contains(row)) {
			assertThat(Differential.readDoc()).as(row).contains("`" + row + "`");
		}
	}

}
