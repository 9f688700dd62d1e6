package dev.backoff.rewrite;

import org.junit.jupiter.api.Test;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.openrewrite.java.Assertions.java;

/**
 * Before and after for every row of docs/migrating.md's Spring Framework table: each test's
 * name is the one the table gives.
 */
class MigrateFrameworkRetryableTests implements RewriteTest {

	private static final String FRAMEWORK_IMPORTS = """
			import java.io.IOException;
			import java.util.concurrent.TimeUnit;

			import org.springframework.resilience.annotation.Retryable;
			""";

	private static final String OUR_IMPORTS = """
			import dev.backoff.Backoff;
			import dev.backoff.Jitter;

			import java.io.IOException;
			""";

	@Override
	public void defaults(RecipeSpec spec) {
		spec.recipe(new MigrateFrameworkRetryableCode())
			.parser(Parsers.withRetryTypes())
			.beforeRecipe(Parsers.templatesReadTheLibraryTypes());
	}

	private void migrates(String before, String after) {
		rewriteRun(java(MigrateSpringRetryTests.quotes(FRAMEWORK_IMPORTS, before),
				MigrateSpringRetryTests.quotes(OUR_IMPORTS, after)));
	}

	@Test
	void stringsGivenAsConstantsAreLeftWhole() {
		// A String constant's text is not in the annotation: dropped, delayString's 5 s became the default 1 s.
		rewriteRun(java("""
				package com.example;

				class Settings {

					static final String DELAY = "5s";

				}
				"""), java(MigrateSpringRetryTests.quotes(FRAMEWORK_IMPORTS, "@Retryable(delayString = Settings.DELAY)"),
				MigrateSpringRetryTests.quotes(FRAMEWORK_IMPORTS, """
						// Backoff migration: left on Spring Framework's @Retryable, delayString = Settings.DELAY is a constant whose text the recipe cannot read (see docs/migrating.md)
						@Retryable(delayString = Settings.DELAY)""")));
	}

	@Test
	void futureReturnTypesGainRetriesAndAreReported() {
		// Framework retries a Mono or Flux (and a CompletionStage) reactively, but a Future, CompletableFuture
		// included, only when the method throws: a failed future is returned as it is. Backoff retries it.
		rewriteRun(java("""
				package com.example;

				import java.util.concurrent.CompletableFuture;

				import org.springframework.resilience.annotation.Retryable;

				class Quotes {

					@Retryable(maxRetries = 2, delay = 100)
					CompletableFuture<String> fetch(String id) {
						return CompletableFuture.completedFuture(id);
					}

				}
				""", """
				package com.example;

				import dev.backoff.Backoff;
				import dev.backoff.Jitter;

				import java.util.concurrent.CompletableFuture;

				class Quotes {

					// Backoff migration, not exact: fetch returns CompletableFuture: Framework's @Retryable retried only a synchronous throw, never a failed CompletableFuture (a Future), which Backoff retries too: the call may now run up to maxAttempts times, so check that it is safe to repeat (see docs/migrating.md)
					@Backoff(maxAttempts = "3", baseDelay = "100ms", multiplier = "1", jitter = Jitter.NONE)
					CompletableFuture<String> fetch(String id) {
						return CompletableFuture.completedFuture(id);
					}

				}
				"""));
	}

	@Test
	void defaultsAreFourAttemptsOneSecondFixed() {
		// maxRetries 3 retries after the first call = 4 attempts; delay 1000 ms; multiplier 1.
		migrates("@Retryable", "@Backoff(maxAttempts = \"4\", baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE)");
	}

	@Test
	void maxRetriesCountsRetries() {
		migrates("@Retryable(maxRetries = 5)",
				"@Backoff(maxAttempts = \"6\", baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE)");
	}

	@Test
	void delayMultiplierAndMaxDelay() {
		migrates("@Retryable(delay = 100, multiplier = 2, maxDelay = 2000)",
				"@Backoff(maxAttempts = \"4\", baseDelay = \"100ms\", maxDelay = \"2s\", multiplier = \"2\", jitter = Jitter.NONE)");
	}

	@Test
	void unlimitedMaxDelayIsTheLastCeilingWhenAboveOurDefault() {
		// Waits 5, 15, 45 s: our default cap (20 s) would shorten the last, so maxDelay is 45 s.
		migrates("@Retryable(delay = 5000, multiplier = 3)",
				"@Backoff(maxAttempts = \"4\", baseDelay = \"5s\", maxDelay = \"45s\", multiplier = \"3\", jitter = Jitter.NONE)");
	}

	@Test
	void timeUnitConvertsDurations() {
		migrates("@Retryable(delay = 2, maxDelay = 10, multiplier = 2, timeUnit = TimeUnit.SECONDS)",
				"@Backoff(maxAttempts = \"4\", baseDelay = \"2s\", maxDelay = \"10s\", multiplier = \"2\", jitter = Jitter.NONE)");
	}

	@Test
	void delayStringIsCarried() {
		migrates("@Retryable(delayString = \"${quotes.delay:250ms}\", maxRetriesString = \"4\")",
				"@Backoff(maxAttempts = \"5\", baseDelay = \"${quotes.delay:250ms}\", maxDelay = \"${quotes.delay:250ms}\", multiplier = \"1\", jitter = Jitter.NONE)");
	}

	@Test
	void maxRetriesPlaceholderAddsTheFirstCall() {
		// Backoff resolves the placeholder, then the bean expression, as @Value does: "#{(3) + 1}" is 4.
		migrates("@Retryable(maxRetriesString = \"${quotes.retries}\")",
				"@Backoff(maxAttempts = \"#{(${quotes.retries}) + 1}\", baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE)");
		migrates("@Retryable(maxRetriesString = \"#{@quoteSettings.retries}\")",
				"@Backoff(maxAttempts = \"#{(@quoteSettings.retries) + 1}\", baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE)");
	}

	@Test
	void jitterIsEqualJitter() {
		migrates("@Retryable(delay = 1000, jitter = 200)", """
				// Backoff migration, not exact: jitter of +/- a fixed amount is now EQUAL jitter: waits between v(n)/2 and v(n) (see docs/migrating.md)
				@Backoff(maxAttempts = "4", baseDelay = "1s", multiplier = "1", jitter = Jitter.EQUAL)""");
	}

	@Test
	void timeoutIsMaxElapsed() {
		migrates("@Retryable(timeout = 30000)",
				"@Backoff(maxAttempts = \"4\", baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE, maxElapsed = \"30s\")");
	}

	@Test
	void includesAndExcludes() {
		migrates("@Retryable(includes = IOException.class, excludes = { IllegalStateException.class })",
				"@Backoff(maxAttempts = \"4\", baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE, retryOn = IOException.class, abortOn = IllegalStateException.class)");
	}

	@Test
	void valueIsIncludes() {
		migrates("@Retryable(IOException.class)",
				"@Backoff(maxAttempts = \"4\", baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE, retryOn = IOException.class)");
	}

	@Test
	void predicateIsLeft() {
		rewriteRun(spec -> spec.dataTable(MigrationReport.Row.class, (rows) -> assertThat(rows)
			.extracting(MigrationReport.Row::kind)
			.containsExactly(MigrationReport.HAND_MIGRATION)), java("""
				package com.example;

				import java.lang.reflect.Method;

				import org.springframework.resilience.annotation.Retryable;
				import org.springframework.resilience.retry.MethodRetryPredicate;

				class Quotes {

					@Retryable(predicate = Transient.class)
					String fetch(String id) {
						return id;
					}

					static class Transient implements MethodRetryPredicate {

						@Override
						public boolean shouldRetry(Method method, Throwable failure) {
							return true;
						}

					}

				}
				""", """
				package com.example;

				import java.lang.reflect.Method;

				import org.springframework.resilience.annotation.Retryable;
				import org.springframework.resilience.retry.MethodRetryPredicate;

				class Quotes {

					// Backoff migration: left on Spring Framework's @Retryable, predicate = a MethodRetryPredicate class (write it as a bean and name it in retryOnException = "@bean.shouldRetry(...)") (see docs/migrating.md)
					@Retryable(predicate = Transient.class)
					String fetch(String id) {
						return id;
					}

					static class Transient implements MethodRetryPredicate {

						@Override
						public boolean shouldRetry(Method method, Throwable failure) {
							return true;
						}

					}

				}
				"""));
	}

	@Test
	void enableResilientMethodsBecomesEnableBackoff() {
		rewriteRun(java("""
				package com.example;

				import org.springframework.resilience.annotation.EnableResilientMethods;

				@EnableResilientMethods
				class Application {
				}
				""", """
				package com.example;

				import dev.backoff.spring.EnableBackoff;

				@EnableBackoff
				class Application {
				}
				"""));
	}

	@Test
	void enableResilientMethodsStaysForConcurrencyLimit() {
		rewriteRun(java("""
				package com.example;

				import org.springframework.resilience.annotation.EnableResilientMethods;

				@EnableResilientMethods
				class Application {
				}
				""", """
				package com.example;

				import dev.backoff.spring.EnableBackoff;
				import org.springframework.resilience.annotation.EnableResilientMethods;

				@EnableBackoff
				@EnableResilientMethods
				class Application {
				}
				"""), java("""
				package com.example;

				import org.springframework.resilience.annotation.ConcurrencyLimit;

				class Reports {

					@ConcurrencyLimit(2)
					void render() {
					}

				}
				"""));
	}

	@Test
	void springRetryIsLeftAlone() {
		// Same simple name, other package: MigrateFrameworkRetryable must not touch it.
		rewriteRun(java("""
				package com.example;

				import org.springframework.retry.annotation.Retryable;

				class Quotes {

					@Retryable(maxAttempts = 2)
					String fetch(String id) {
						return id;
					}

				}
				"""));
	}

	@Test
	void constantArithmeticStaysArithmetic() {
		// "" + Limits.DELAY + 50 would be "20050": the constant expression is parenthesised.
		rewriteRun(java("""
				package com.example;

				class Limits {

					static final int RETRIES = 4;

					static final long DELAY = 200;

					static final double MULTIPLIER = 1.5;

				}
				"""), java(MigrateSpringRetryTests.quotes(FRAMEWORK_IMPORTS,
				"@Retryable(maxRetries = Limits.RETRIES - 1, delay = Limits.DELAY + 50, multiplier = Limits.MULTIPLIER + 0.5, maxDelay = 2000)"),
				MigrateSpringRetryTests.quotes(OUR_IMPORTS, "@Backoff(maxAttempts = \"\" + (Limits.RETRIES - 1 + 1), baseDelay = \"\" + (Limits.DELAY + 50), maxDelay = \"2s\", multiplier = \"\" + (Limits.MULTIPLIER + 0.5), jitter = Jitter.NONE)")));
	}

	@Test
	void constantRetriesBelowThePrecedenceOfPlusAreParenthesised() {
		// "" + (Limits.RETRIES << 1 + 1) would shift by 2: 17 attempts where Framework made 9.
		rewriteRun(java("""
				package com.example;

				class Limits {

					static final int RETRIES = 4;

				}
				"""), java(MigrateSpringRetryTests.quotes(FRAMEWORK_IMPORTS, "@Retryable(maxRetries = Limits.RETRIES << 1)"),
				MigrateSpringRetryTests.quotes(OUR_IMPORTS, "@Backoff(maxAttempts = \"\" + ((Limits.RETRIES << 1) + 1), baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE)")));
	}

}
