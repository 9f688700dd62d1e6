package dev.backoff.rewrite;

import org.junit.jupiter.api.Test;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.openrewrite.java.Assertions.java;

/**
 * Before and after for every row of docs/migrating.md's Spring Retry table: each test's name is
 * the one the table gives.
 */
class MigrateSpringRetryTests implements RewriteTest {

	private static final String SPRING_IMPORTS = """
			import java.io.IOException;

			import org.springframework.retry.annotation.Backoff;
			import org.springframework.retry.annotation.Retryable;
			""";

	private static final String OUR_IMPORTS = """
			import dev.backoff.Backoff;
			import dev.backoff.Jitter;

			import java.io.IOException;
			""";

	private static final String CAUSE_NOTE = "a failure of a retried type caused by an excluded one was retried by Spring Retry (it reads the causes only of a failure whose own type it does not classify); Backoff's abortOn also matches the causes, so it is not retried";

	@Override
	public void defaults(RecipeSpec spec) {
		spec.recipe(new MigrateSpringRetryCode())
			.parser(Parsers.withRetryTypes())
			.beforeRecipe(Parsers.templatesReadTheLibraryTypes());
	}

	/** A class with one retried method, its annotations (and a comment) given. */
	static String quotes(String imports, String annotations) {
		return """
				package com.example;

				%s
				class Quotes {

					%s
					String fetch(String id) throws IOException {
						return id;
					}

				}
				""".formatted(imports, annotations.replace("\n", "\n\t"));
	}

	private void migrates(String before, String after) {
		rewriteRun(java(quotes(SPRING_IMPORTS, before), quotes(OUR_IMPORTS, after)));
	}

	@Test
	void defaultsAreOneSecondFixed() {
		// Spring Retry: 3 attempts, FixedBackOffPolicy of 1000 ms; ours: 3 attempts by default.
		migrates("@Retryable", "@Backoff(baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE)");
	}

	@Test
	void maxAttempts() {
		migrates("@Retryable(maxAttempts = 5)",
				"@Backoff(maxAttempts = \"5\", baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE)");
	}

	@Test
	void maxAttemptsExpressionPlaceholder() {
		migrates("@Retryable(maxAttemptsExpression = \"${quotes.attempts:5}\")",
				"@Backoff(maxAttempts = \"${quotes.attempts:5}\", baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE)");
	}

	@Test
	void fixedDelay() {
		migrates("@Retryable(backoff = @Backoff(delay = 250))",
				"@Backoff(baseDelay = \"250ms\", multiplier = \"1\", jitter = Jitter.NONE)");
	}

	@Test
	void fixedDelayAsValue() {
		migrates("@Retryable(backoff = @Backoff(2000))",
				"@Backoff(baseDelay = \"2s\", multiplier = \"1\", jitter = Jitter.NONE)");
	}

	@Test
	void zeroDelayIsOneMillisecond() {
		// FixedBackOffPolicy.setBackOffPeriod(0) waits 1 ms; multiplier = 0 means no multiplier.
		migrates("@Retryable(backoff = @Backoff(delay = 0, multiplier = 0))",
				"@Backoff(baseDelay = \"1ms\", multiplier = \"1\", jitter = Jitter.NONE)");
	}

	@Test
	void fixedDelayAboveOurDefaultCap() {
		migrates("@Retryable(backoff = @Backoff(delay = 45000))",
				"@Backoff(baseDelay = \"45s\", maxDelay = \"45s\", multiplier = \"1\", jitter = Jitter.NONE)");
	}

	@Test
	void exponentialIsCappedAtThirtySecondsByDefault() {
		// ExponentialBackOffPolicy.DEFAULT_MAX_INTERVAL when maxDelay is not above the delay.
		migrates("@Retryable(maxAttempts = 6, backoff = @Backoff(delay = 100, multiplier = 2))",
				"@Backoff(maxAttempts = \"6\", baseDelay = \"100ms\", maxDelay = \"30s\", multiplier = \"2\", jitter = Jitter.NONE)");
	}

	@Test
	void exponentialWithMaxDelay() {
		migrates("@Retryable(backoff = @Backoff(delay = 200, multiplier = 1.5, maxDelay = 5000))",
				"@Backoff(baseDelay = \"200ms\", maxDelay = \"5s\", multiplier = \"1.5\", jitter = Jitter.NONE)");
	}

	@Test
	void exponentialWithMaxDelayBelowDelayUsesTheDefaultCap() {
		migrates("@Retryable(backoff = @Backoff(delay = 2000, multiplier = 3, maxDelay = 1000))",
				"@Backoff(baseDelay = \"2s\", maxDelay = \"30s\", multiplier = \"3\", jitter = Jitter.NONE)");
	}

	@Test
	void multiplierAtMostOneIsFixed() {
		migrates("@Retryable(backoff = @Backoff(delay = 300, multiplier = 0.5))",
				"@Backoff(baseDelay = \"300ms\", maxDelay = \"30s\", multiplier = \"1\", jitter = Jitter.NONE)");
	}

	@Test
	void randomIsEqualJitter() {
		migrates("@Retryable(backoff = @Backoff(delay = 100, multiplier = 2, random = true))", """
				// Backoff migration, not exact: random = true waited between v(n) and multiplier x v(n); EQUAL jitter waits between v(n)/2 and v(n) (see docs/migrating.md)
				@Backoff(baseDelay = "100ms", maxDelay = "30s", multiplier = "2", jitter = Jitter.EQUAL)""");
	}

	@Test
	void uniformFromZeroIsFullJitter() {
		// UniformRandomBackOffPolicy between 0 and 1000 ms is uniform(0, v) on a fixed v: FULL.
		migrates("@Retryable(backoff = @Backoff(delay = 0, maxDelay = 1000))",
				"@Backoff(baseDelay = \"1s\", maxDelay = \"1s\", multiplier = \"1\", jitter = Jitter.FULL)");
	}

	@Test
	void uniformIsDecorrelatedJitter() {
		migrates("@Retryable(backoff = @Backoff(delay = 500, maxDelay = 3000))", """
				// Backoff migration, not exact: a wait drawn uniformly between 500ms and 3s is now DECORRELATED jitter between the same bounds (see docs/migrating.md)
				@Backoff(baseDelay = "500ms", maxDelay = "3s", jitter = Jitter.DECORRELATED)""");
	}

	@Test
	void delayExpressionPlaceholder() {
		migrates("@Retryable(backoff = @Backoff(delayExpression = \"${quotes.delay:500}\"))",
				"@Backoff(baseDelay = \"${quotes.delay:500}\", maxDelay = \"${quotes.delay:500}\", multiplier = \"1\", jitter = Jitter.NONE)");
	}

	@Test
	void beanExpressionsAreCarried() {
		// Evaluated once at start-up by both: Backoff's attributes resolve #{...} as @Value does.
		migrates("""
				@Retryable(maxAttemptsExpression = "#{@quoteSettings.attempts}", backoff = @Backoff(delayExpression = "#{@quoteSettings.delay}"))""",
				"""
				@Backoff(maxAttempts = "#{@quoteSettings.attempts}", baseDelay = "#{@quoteSettings.delay}", maxDelay = "#{@quoteSettings.delay}", multiplier = "1", jitter = Jitter.NONE)""");
		// With a multiplier, only the rules for values Spring Retry adjusts (known only at start-up) are noted.
		migrates("""
				@Retryable(backoff = @Backoff(delayExpression = "#{@quoteSettings.delay}", maxDelay = 5000, multiplier = 2))""",
				"""
				// Backoff migration, not exact: Spring Retry takes a delay under 1 ms as 1 ms and a maxDelay not above the delay as 30s; Backoff takes the values as they are and refuses a maxDelay below the baseDelay at start-up (see docs/migrating.md)
				@Backoff(baseDelay = "#{@quoteSettings.delay}", maxDelay = "5s", multiplier = "2", jitter = Jitter.NONE)""");
	}

	@Test
	void retryForAndNoRetryFor() {
		migrates("@Retryable(retryFor = IOException.class, noRetryFor = { IllegalStateException.class, IllegalArgumentException.class })",
				"// Backoff migration, not exact: %s (see docs/migrating.md)\n".formatted(CAUSE_NOTE)
						+ "@Backoff(baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE, retryOn = IOException.class, abortOn = { IllegalStateException.class, IllegalArgumentException.class })");
	}

	@Test
	void valueAndExcludeAreTheOldNames() {
		migrates("@Retryable(value = IOException.class, exclude = IllegalStateException.class)",
				"// Backoff migration, not exact: %s (see docs/migrating.md)\n".formatted(CAUSE_NOTE)
						+ "@Backoff(baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE, retryOn = IOException.class, abortOn = IllegalStateException.class)");
	}

	@Test
	void includedSubclassOfAnExcludedClassIsReported() {
		// The closer class decides in Spring Retry: FileNotFoundException is retried, any other IOException
		// not, which retryOn alone gives (Backoff would refuse a retryOn type under an abortOn one).
		rewriteRun(java(quotes(SPRING_IMPORTS, "@Retryable(include = java.io.FileNotFoundException.class, exclude = IOException.class)"),
				quotes(OUR_IMPORTS.replace("import java.io.IOException;", "import java.io.FileNotFoundException;\nimport java.io.IOException;"),
						"@Backoff(baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE, retryOn = FileNotFoundException.class)")));
	}

	@Test
	void exceptionExpressionGetsAnExplicitRoot() {
		migrates("@Retryable(exceptionExpression = \"message.contains('busy') and #root.cause != null\")",
				"@Backoff(baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE, retryOnException = \"#exception.message.contains('busy') and #exception.cause != null\")");
	}

	@Test
	void labelIsDropped() {
		migrates("@Retryable(label = \"quotes\")", """
				// Backoff migration, not exact: label dropped (Backoff names a method's meters by its class and method) (see docs/migrating.md)
				@Backoff(baseDelay = "1s", multiplier = "1", jitter = Jitter.NONE)""");
	}

	@Test
	void recoverByShapeBecomesTheFallback() {
		// Spring Retry's shape (failure first) is kept: Backoff's fallback takes the failure first or last.
		rewriteRun(java("""
				package com.example;

				import org.springframework.retry.annotation.Recover;
				import org.springframework.retry.annotation.Retryable;

				class Quotes {

					@Retryable
					String fetch(String id) {
						return id;
					}

					@Recover
					String cached(RuntimeException failure, String id) {
						return "cached " + id;
					}

				}
				""", """
				package com.example;

				import dev.backoff.Backoff;
				import dev.backoff.Jitter;

				class Quotes {

					@Backoff(baseDelay = "1s", multiplier = "1", jitter = Jitter.NONE, fallback = "cached")
					String fetch(String id) {
						return id;
					}

					String cached(RuntimeException failure, String id) {
						return "cached " + id;
					}

				}
				"""));
	}

	@Test
	void recoverByNameAndOverloadsByFailureType() {
		// Both overloads stay: Backoff picks the one whose failure parameter fits, as Spring Retry does.
		rewriteRun(java("""
				package com.example;

				import java.io.IOException;

				import org.springframework.retry.annotation.Recover;
				import org.springframework.retry.annotation.Retryable;

				class Quotes {

					@Retryable(recover = "fallback")
					String fetch(String id) throws IOException {
						return id;
					}

					@Recover
					String fallback(IOException failure, String id) {
						return "io " + id;
					}

					@Recover
					String fallback(IllegalStateException failure, String id) {
						return "state " + id;
					}

				}
				""", """
				package com.example;

				import java.io.IOException;

				import dev.backoff.Backoff;
				import dev.backoff.Jitter;

				class Quotes {

					@Backoff(baseDelay = "1s", multiplier = "1", jitter = Jitter.NONE, fallback = "fallback")
					String fetch(String id) throws IOException {
						return id;
					}

					String fallback(IOException failure, String id) {
						return "io " + id;
					}

					String fallback(IllegalStateException failure, String id) {
						return "state " + id;
					}

				}
				"""));
	}

	@Test
	void interfaceDeclarationsAreMigratedWhereTheyStand() {
		// Spring Retry reads them from the interface, and so does Backoff for an unannotated implementation.
		rewriteRun(java("""
				package com.example;

				import org.springframework.retry.annotation.Recover;
				import org.springframework.retry.annotation.Retryable;

				interface QuoteClient {

					@Retryable(maxAttempts = 2)
					String fetch(String id);

					@Recover
					String cached(RuntimeException failure, String id);

				}
				""", """
				package com.example;

				import dev.backoff.Backoff;
				import dev.backoff.Jitter;

				interface QuoteClient {

					@Backoff(maxAttempts = "2", baseDelay = "1s", multiplier = "1", jitter = Jitter.NONE, fallback = "cached")
					String fetch(String id);

					String cached(RuntimeException failure, String id);

				}
				"""));
	}

	@Test
	void recoverReturningASupertypeIsReported() {
		rewriteRun(java("""
				package com.example;

				import org.springframework.retry.annotation.Recover;
				import org.springframework.retry.annotation.Retryable;

				class Quotes {

					@Retryable
					String fetch(String id) {
						return id;
					}

					@Recover
					Object cached(RuntimeException failure, String id) {
						return "cached";
					}

				}
				""", """
				package com.example;

				import dev.backoff.Backoff;
				import dev.backoff.Jitter;

				class Quotes {

					// Backoff migration, not exact: the fallback returns a supertype of the method's type, which Spring Retry allows: Backoff checks at start-up that it returns the method's type (see docs/migrating.md)
					@Backoff(baseDelay = "1s", multiplier = "1", jitter = Jitter.NONE, fallback = "cached")
					String fetch(String id) {
						return id;
					}

					Object cached(RuntimeException failure, String id) {
						return "cached";
					}

				}
				"""));
	}

	@Test
	void recoverForNoRetryableOfItsClassIsLeft() {
		// Spring Retry finds @Recover methods in superclasses too; the recipe links within a class.
		rewriteRun(java("""
				package com.example;

				import org.springframework.retry.annotation.Recover;

				class BaseClient {

					@Recover
					String cached(RuntimeException failure, String id) {
						return "cached";
					}

				}
				""", """
				package com.example;

				import org.springframework.retry.annotation.Recover;

				class BaseClient {

					// Backoff migration: left on Spring Retry, @Recover for no @Retryable of this class (one in a subclass?): name it as that method's @Backoff fallback by hand (see docs/migrating.md)
					@Recover
					String cached(RuntimeException failure, String id) {
						return "cached";
					}

				}
				"""));
	}

	@Test
	void recoverMethodsOfDifferentNamesAreLeft() {
		rewriteRun(spec -> spec.dataTable(MigrationReport.Row.class, (rows) -> assertThat(rows)
			.extracting(MigrationReport.Row::element, MigrationReport.Row::kind)
			.contains(org.assertj.core.groups.Tuple.tuple("Quotes#fetch", MigrationReport.HAND_MIGRATION))),
				java("""
						package com.example;

						import org.springframework.retry.annotation.Recover;
						import org.springframework.retry.annotation.Retryable;

						class Quotes {

							@Retryable
							String fetch(String id) {
								return id;
							}

							@Recover
							String cached(RuntimeException failure, String id) {
								return "cached";
							}

							@Recover
							String empty(IllegalStateException failure, String id) {
								return "";
							}

						}
						""", """
						package com.example;

						import org.springframework.retry.annotation.Recover;
						import org.springframework.retry.annotation.Retryable;

						class Quotes {

							// Backoff migration: left on Spring Retry, @Recover methods of different names [cached, empty] could answer for it: Backoff's fallback names one (see docs/migrating.md)
							@Retryable
							String fetch(String id) {
								return id;
							}

							@Recover
							String cached(RuntimeException failure, String id) {
								return "cached";
							}

							@Recover
							String empty(IllegalStateException failure, String id) {
								return "";
							}

						}
						"""));
	}

	@Test
	void statefulListenersAndInterceptorAreLeftWhole() {
		rewriteRun(spec -> spec.dataTable(MigrationReport.Row.class, (rows) -> assertThat(rows)
			.extracting(MigrationReport.Row::element)
			.containsExactlyInAnyOrder("Orders#place", "Orders#cancel", "Orders#ship", "Orders#count", "Orders")),
				java("""
						package com.example;

						import org.springframework.retry.annotation.Backoff;
						import org.springframework.retry.annotation.Retryable;
						import org.springframework.retry.support.RetrySynchronizationManager;

						class Orders {

							@Retryable(stateful = true, backoff = @Backoff(500))
							void place(String id) {
							}

							@Retryable(listeners = "auditListener")
							void cancel(String id) {
							}

							@Retryable(interceptor = "orderInterceptor")
							void ship(String id) {
							}

							@Retryable
							Object count() {
								return RetrySynchronizationManager.getContext().getAttribute("attempt");
							}

							// Spring Retry's Backoff is still imported: ours stays fully qualified.
							@Retryable(backoff = @Backoff(200))
							void refund(String id) {
							}

						}
						""", """
						package com.example;

						import dev.backoff.Jitter;
						import org.springframework.retry.annotation.Backoff;
						import org.springframework.retry.annotation.Retryable;
						import org.springframework.retry.support.RetrySynchronizationManager;

						// Backoff migration: left on Spring Retry, uses RetrySynchronizationManager: migrate to BackoffExecutor by hand (see docs/migrating.md)
						class Orders {

							// Backoff migration: left on Spring Retry, stateful retry (rethrows and retries on the next call with the same arguments) (see docs/migrating.md)
							@Retryable(stateful = true, backoff = @Backoff(500))
							void place(String id) {
							}

							// Backoff migration: left on Spring Retry, listeners = RetryListener beans (see docs/migrating.md)
							@Retryable(listeners = "auditListener")
							void cancel(String id) {
							}

							// Backoff migration: left on Spring Retry, interceptor = a retry interceptor bean (see docs/migrating.md)
							@Retryable(interceptor = "orderInterceptor")
							void ship(String id) {
							}

							// Backoff migration: left on Spring Retry, the method reads RetrySynchronizationManager beyond getContext().getRetryCount() (the context's attributes, its last failure, or the count in a lambda or an anonymous class, which may run on another thread or after the attempt) (see docs/migrating.md)
							@Retryable
							Object count() {
								return RetrySynchronizationManager.getContext().getAttribute("attempt");
							}

							// Spring Retry's Backoff is still imported: ours stays fully qualified.
							@dev.backoff.Backoff(baseDelay = "200ms", multiplier = "1", jitter = Jitter.NONE)
							void refund(String id) {
							}

						}
						"""));
	}

	@Test
	void expressionsGivenAsConstantsAreLeftWhole() {
		// A String constant's text is not in the annotation: it may be a placeholder, a bean expression
		// or one evaluated per retry. Under Spring Retry, "#{5}" here made 5 attempts; dropped, 3.
		rewriteRun(java("""
				package com.example;

				class Settings {

					static final String ATTEMPTS = "#{5}";

					static final String MULTIPLIER = "#{3}";

				}
				"""), java("""
				package com.example;

				import org.springframework.retry.annotation.Backoff;
				import org.springframework.retry.annotation.Retryable;

				class Orders {

					@Retryable(maxAttemptsExpression = Settings.ATTEMPTS)
					void place(int priority) {
					}

					@Retryable(backoff = @Backoff(delay = 100, multiplierExpression = Settings.MULTIPLIER))
					void cancel(int priority) {
					}

				}
				""", """
				package com.example;

				import org.springframework.retry.annotation.Backoff;
				import org.springframework.retry.annotation.Retryable;

				class Orders {

					// Backoff migration: left on Spring Retry, maxAttemptsExpression = Settings.ATTEMPTS is a constant whose text the recipe cannot read (a placeholder, a bean expression, or one evaluated on every retry) (see docs/migrating.md)
					@Retryable(maxAttemptsExpression = Settings.ATTEMPTS)
					void place(int priority) {
					}

					// Backoff migration: left on Spring Retry, multiplierExpression = Settings.MULTIPLIER is a constant whose text the recipe cannot read (a placeholder, a bean expression, or one evaluated on every retry) (see docs/migrating.md)
					@Retryable(backoff = @Backoff(delay = 100, multiplierExpression = Settings.MULTIPLIER))
					void cancel(int priority) {
					}

				}
				"""));
	}

	@Test
	void aRecoverNamedByAConstantIsLeftWhole() {
		// Spring Retry calls the method the constant names; taken as absent, a @Recover of another name
		// that fits by shape would become the fallback.
		String quotes = """
				package com.example;

				import java.io.IOException;

				import org.springframework.retry.annotation.Recover;
				import org.springframework.retry.annotation.Retryable;

				class Quotes {

					static final String RECOVERY = "stale";

					%s@Retryable(recover = RECOVERY)
					String fetch(String id) throws IOException {
						return id;
					}

					%s@Recover
					String cached(IOException failure, String id) {
						return "cached";
					}

					@Recover
					String stale(IOException failure) {
						return "stale";
					}

				}
				""";
		rewriteRun(java(quotes.formatted("", ""), quotes.formatted("// Backoff migration: left on Spring Retry, recover = "
				+ "RECOVERY is a constant: the recipe cannot read which @Recover method it names (see docs/migrating.md)\n\t", "")));
	}

	@Test
	void expressionsEvaluatedPerRetryAreLeftWhole() {
		// Without #{...}, Spring Retry evaluates them on every retry with the arguments.
		rewriteRun(java("""
				package com.example;

				import org.springframework.retry.annotation.Backoff;
				import org.springframework.retry.annotation.Retryable;

				class Orders {

					@Retryable(maxAttemptsExpression = "args[0] > 1 ? 5 : 2")
					void place(int priority) {
					}

					@Retryable(backoff = @Backoff(multiplier = 2, randomExpression = "${orders.random}"))
					void cancel(int priority) {
					}

				}
				""", """
				package com.example;

				import org.springframework.retry.annotation.Backoff;
				import org.springframework.retry.annotation.Retryable;

				class Orders {

					// Backoff migration: left on Spring Retry, maxAttemptsExpression "args[0] > 1 ? 5 : 2" is evaluated on every retry (no #{...}): Backoff reads its attributes once (see docs/migrating.md)
					@Retryable(maxAttemptsExpression = "args[0] > 1 ? 5 : 2")
					void place(int priority) {
					}

					// Backoff migration: left on Spring Retry, randomExpression (random or not decided by an expression) (see docs/migrating.md)
					@Retryable(backoff = @Backoff(multiplier = 2, randomExpression = "${orders.random}"))
					void cancel(int priority) {
					}

				}
				"""));
	}

	@Test
	void circuitBreakerIsLeft() {
		rewriteRun(java("""
				package com.example;

				import org.springframework.retry.annotation.CircuitBreaker;

				class Inventory {

					@CircuitBreaker(maxAttempts = 2)
					int stock(String sku) {
						return 0;
					}

				}
				""", """
				package com.example;

				import org.springframework.retry.annotation.CircuitBreaker;

				class Inventory {

					// Backoff migration: left on Spring Retry, @CircuitBreaker (see docs/migrating.md)
					@CircuitBreaker(maxAttempts = 2)
					int stock(String sku) {
						return 0;
					}

				}
				"""));
	}

	@Test
	void retryTemplateIsLeft() {
		rewriteRun(java("""
				package com.example;

				import org.springframework.retry.support.RetryTemplate;

				class Prices {

					private final RetryTemplate template = RetryTemplate.builder().maxAttempts(4).fixedBackoff(200).build();

					int price(String sku) {
						return this.template.execute((context) -> 42);
					}

				}
				""", """
				package com.example;

				import org.springframework.retry.support.RetryTemplate;

				// Backoff migration: left on Spring Retry, uses RetryTemplate: migrate to BackoffExecutor by hand (see docs/migrating.md)
				class Prices {

					private final RetryTemplate template = RetryTemplate.builder().maxAttempts(4).fixedBackoff(200).build();

					int price(String sku) {
						return this.template.execute((context) -> 42);
					}

				}
				"""));
	}

	@Test
	void enableRetryBecomesEnableBackoff() {
		rewriteRun(java("""
				package com.example;

				import org.springframework.context.annotation.Configuration;
				import org.springframework.retry.annotation.EnableRetry;

				@Configuration
				@EnableRetry(proxyTargetClass = true)
				class RetryTestConfiguration {
				}
				""", """
				package com.example;

				import dev.backoff.spring.EnableBackoff;
				import org.springframework.context.annotation.Configuration;

				@Configuration
				@EnableBackoff
				class RetryTestConfiguration {
				}
				"""));
	}

	@Test
	void enableRetryStaysBesideEnableBackoffWhileSpringRetryCodeIsLeft() {
		rewriteRun(java("""
				package com.example;

				import org.springframework.retry.annotation.EnableRetry;

				@EnableRetry
				class Application {
				}
				""", """
				package com.example;

				import dev.backoff.spring.EnableBackoff;
				import org.springframework.retry.annotation.EnableRetry;

				@EnableBackoff
				@EnableRetry
				class Application {
				}
				"""), java("""
				package com.example;

				import org.springframework.retry.annotation.Retryable;

				class Orders {

					// Backoff migration: left on Spring Retry, stateful retry (rethrows and retries on the next call with the same arguments) (see docs/migrating.md)
					@Retryable(stateful = true)
					void place(String id) {
					}

				}
				"""));
	}

	@Test
	void typeLevelRetryable() {
		rewriteRun(java("""
				package com.example;

				import org.springframework.retry.annotation.Retryable;

				@Retryable(maxAttempts = 4)
				class Quotes {

					String fetch(String id) {
						return id;
					}

				}
				""", """
				package com.example;

				import dev.backoff.Backoff;
				import dev.backoff.Jitter;

				@Backoff(maxAttempts = "4", baseDelay = "1s", multiplier = "1", jitter = Jitter.NONE)
				class Quotes {

					String fetch(String id) {
						return id;
					}

				}
				"""));
	}

	@Test
	void frameworkRetryableIsLeftAlone() {
		// Same simple name, other package: MigrateSpringRetry must not touch it.
		rewriteRun(java("""
				package com.example;

				import org.springframework.resilience.annotation.Retryable;

				class Quotes {

					@Retryable(maxRetries = 2)
					String fetch(String id) {
						return id;
					}

				}
				"""));
	}

	private static final String LIMITS = """
			package com.example;

			class Limits {

				static final int ATTEMPTS = 5;

				static final long DELAY = 200;

				static final double MULTIPLIER = 0;

			}
			""";

	@Test
	void constantArithmeticStaysArithmetic() {
		// "" + Limits.ATTEMPTS + 1 would be "51", "" + Limits.DELAY + 50 "20050", "" + -1 + 4 "-14".
		rewriteRun(java(LIMITS), java(quotes(SPRING_IMPORTS,
				"@Retryable(maxAttempts = Limits.ATTEMPTS + 1, backoff = @Backoff(delay = Limits.DELAY + 50))"),
				quotes(OUR_IMPORTS, "@Backoff(maxAttempts = \"\" + (Limits.ATTEMPTS + 1), baseDelay = \"\" + (Limits.DELAY + 50), "
						+ "maxDelay = \"\" + (Limits.DELAY + 50), multiplier = \"1\", jitter = Jitter.NONE)")));
		migrates("@Retryable(maxAttempts = -1 + 4)",
				"@Backoff(maxAttempts = \"\" + (-1 + 4), baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE)");
		migrates("@Retryable(maxAttempts = (2 + 3))",
				"@Backoff(maxAttempts = \"\" + (2 + 3), baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE)");
	}

	@Test
	void multiplierAtOrBelowZeroIsNoGrowth() {
		// A literal: Spring Retry's fixed (or uniform) policy, as without a multiplier.
		migrates("@Retryable(backoff = @Backoff(delay = 100, multiplier = -1))",
				"@Backoff(baseDelay = \"100ms\", multiplier = \"1\", jitter = Jitter.NONE)");
		// Known at start-up only: a value of 1 or less is taken as 1, so that 0 is a fixed wait, not a start-up failure.
		migrates("@Retryable(backoff = @Backoff(delay = 100, multiplierExpression = \"${quotes.multiplier:0}\"))",
				"@Backoff(baseDelay = \"100ms\", maxDelay = \"30s\", multiplier = \"#{(${quotes.multiplier:0}) > 1 ? (${quotes.multiplier:0}) : 1}\", jitter = Jitter.NONE)");
		migrates("@Retryable(backoff = @Backoff(delay = 100, multiplierExpression = \"#{@quoteSettings.multiplier}\"))",
				"@Backoff(baseDelay = \"100ms\", maxDelay = \"30s\", multiplier = \"#{(@quoteSettings.multiplier) > 1 ? (@quoteSettings.multiplier) : 1}\", jitter = Jitter.NONE)");
		migrates("@Retryable(backoff = @Backoff(delay = 100, multiplierExpression = \"0.0\"))",
				"@Backoff(baseDelay = \"100ms\", multiplier = \"1\", jitter = Jitter.NONE)");
		rewriteRun(java(LIMITS), java(quotes(SPRING_IMPORTS, "@Retryable(backoff = @Backoff(delay = 100, multiplier = Limits.MULTIPLIER))"),
				quotes(OUR_IMPORTS, "@Backoff(baseDelay = \"100ms\", maxDelay = \"30s\", multiplier = \"#{(\" + Limits.MULTIPLIER + \") > 1 ? (\" + Limits.MULTIPLIER + \") : 1}\", jitter = Jitter.NONE)")));
		// With a maxDelay above the delay, a value of 0 or less drew uniform waits there: said.
		migrates("@Retryable(backoff = @Backoff(delay = 100, maxDelay = 500, multiplierExpression = \"${quotes.multiplier:0}\"))", """
				// Backoff migration, not exact: a multiplier known only at start-up that is 0 or less made Spring Retry wait uniformly between delay and maxDelay (above the delay); here it is taken as 1, a fixed wait (see docs/migrating.md)
				@Backoff(baseDelay = "100ms", maxDelay = "500ms", multiplier = "#{(${quotes.multiplier:0}) > 1 ? (${quotes.multiplier:0}) : 1}", jitter = Jitter.NONE)""");
	}

	@Test
	void retryCountReadsInALambdaLeaveTheMethodWhole() {
		// The lambda may run on another thread or after the attempt: there Spring Retry has no context, and
		// CurrentAttempt.number() no attempt, so no rewriting of the read is exact.
		String method = """
				package com.example;

				import java.util.concurrent.CompletableFuture;

				import org.springframework.retry.annotation.Retryable;
				import org.springframework.retry.support.RetrySynchronizationManager;

				%sclass Quotes {

					%s@Retryable
					CompletableFuture<String> fetch(String id) {
						return CompletableFuture.supplyAsync(() -> id + RetrySynchronizationManager.getContext().getRetryCount());
					}

				}
				""";
		rewriteRun(java(method.formatted("", ""), method.formatted("// Backoff migration: left on Spring Retry, uses "
				+ "RetrySynchronizationManager: migrate to BackoffExecutor by hand (see docs/migrating.md)\n",
				"// Backoff migration: left on Spring Retry, the method reads "
				+ "RetrySynchronizationManager beyond getContext().getRetryCount() (the context's attributes, its last failure, or "
				+ "the count in a lambda or an anonymous class, which may run on another thread or after the attempt) (see docs/migrating.md)\n\t")));
	}

	@Test
	void upperCaseSpelWordsStayOperators() {
		migrates("@Retryable(exceptionExpression = \"message.contains('busy') AND NOT retryable OR cause EQ null\")",
				"@Backoff(baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE, retryOnException = \"#exception.message.contains('busy') AND NOT #exception.retryable OR #exception.cause EQ null\")");
	}

	@Test
	void aDelayKnownOnlyAtStartUpBesideAMaxDelayWithoutAMultiplierIsLeftWhole() {
		// Spring Retry draws uniformly between delay and maxDelay when maxDelay is above it: unknown here.
		String annotation = "@Retryable(backoff = @Backoff(delayExpression = \"${quotes.delay:100}\", maxDelay = 3000))";
		rewriteRun(java(quotes(SPRING_IMPORTS, annotation), quotes(SPRING_IMPORTS, """
				// Backoff migration: left on Spring Retry, a delay known only at start-up beside maxDelay without a multiplier (Spring Retry waits uniformly between them when maxDelay is above the delay, else a fixed delay) (see docs/migrating.md)
				""" + annotation)));
	}

	@Test
	void aRetriedFailureCausedByAnExcludedOneIsReported() {
		// Spring Retry: IllegalStateException (a RuntimeException) caused by IllegalArgumentException is retried.
		migrates("@Retryable(retryFor = RuntimeException.class, noRetryFor = IllegalArgumentException.class)",
				"// Backoff migration, not exact: %s (see docs/migrating.md)\n".formatted(CAUSE_NOTE)
						+ "@Backoff(baseDelay = \"1s\", multiplier = \"1\", jitter = Jitter.NONE, retryOn = RuntimeException.class, abortOn = IllegalArgumentException.class)");
	}

	@Test
	void asyncReturnTypesGainRetriesAndAreReported() {
		rewriteRun(java("""
				package com.example;

				import java.util.concurrent.CompletableFuture;

				import org.springframework.retry.annotation.Retryable;

				class Quotes {

					@Retryable
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

					// Backoff migration, not exact: fetch returns CompletableFuture: Spring Retry retried only a synchronous throw, never a failed CompletableFuture, which Backoff retries too: the call may now run up to maxAttempts times, so check that it is safe to repeat (see docs/migrating.md)
					@Backoff(baseDelay = "1s", multiplier = "1", jitter = Jitter.NONE)
					CompletableFuture<String> fetch(String id) {
						return CompletableFuture.completedFuture(id);
					}

				}
				"""));
	}

	@Test
	void composedAnnotationIsLeftWhole() {
		// An int alias cannot become one of our String attributes: the annotation and its uses stay on Spring Retry.
		rewriteRun(java("""
				package com.example;

				import java.lang.annotation.Retention;
				import java.lang.annotation.RetentionPolicy;

				import org.springframework.core.annotation.AliasFor;
				import org.springframework.retry.annotation.Retryable;

				@Retention(RetentionPolicy.RUNTIME)
				@Retryable
				@interface RemoteRetry {

					@AliasFor(annotation = Retryable.class, attribute = "maxAttempts")
					int attempts() default 3;

				}
				""", """
				package com.example;

				import java.lang.annotation.Retention;
				import java.lang.annotation.RetentionPolicy;

				import org.springframework.core.annotation.AliasFor;
				import org.springframework.retry.annotation.Retryable;

				// Backoff migration: left on Spring Retry, a composed annotation (@Retryable as a meta-annotation, its attributes perhaps aliased): Backoff's @Backoff is no meta-annotation; put @Backoff on the methods that use it (see docs/migrating.md)
				@Retention(RetentionPolicy.RUNTIME)
				@Retryable
				@interface RemoteRetry {

					@AliasFor(annotation = Retryable.class, attribute = "maxAttempts")
					int attempts() default 3;

				}
				"""));
	}

	@Test
	void composedAnnotationUsesAreLeftWithSpringRetry() {
		// Where the composed annotation is used, Spring Retry retries: @EnableRetry stays (beside @EnableBackoff),
		// and the use is said, whether the annotation is in the project or in a library.
		String library = """
				package com.vendor;

				import java.lang.annotation.Retention;
				import java.lang.annotation.RetentionPolicy;

				import org.springframework.core.annotation.AliasFor;
				import org.springframework.retry.annotation.Retryable;

				@Retention(RetentionPolicy.RUNTIME)
				@Retryable
				public @interface RemoteRetry {

					@AliasFor(annotation = Retryable.class, attribute = "maxAttempts")
					int attempts() default 3;

				}
				""";
		rewriteRun((spec) -> spec.parser(Parsers.withRetryTypes().dependsOn(Stubs.ENABLE_BACKOFF, library)), java("""
				package com.example;

				import org.springframework.retry.annotation.EnableRetry;

				@EnableRetry
				class RetryConfiguration {
				}
				""", """
				package com.example;

				import dev.backoff.spring.EnableBackoff;
				import org.springframework.retry.annotation.EnableRetry;

				@EnableBackoff
				@EnableRetry
				class RetryConfiguration {
				}
				"""), java("""
				package com.example;

				import com.vendor.RemoteRetry;

				class Quotes {

					@RemoteRetry(attempts = 5)
					String fetch(String id) {
						return id;
					}

				}
				""", """
				package com.example;

				import com.vendor.RemoteRetry;

				class Quotes {

					// Backoff migration: left on Spring Retry, @RemoteRetry is a composed annotation (meta-annotated with Spring Retry's @Retryable): Backoff's @Backoff is no meta-annotation; put @Backoff on this method (see docs/migrating.md)
					@RemoteRetry(attempts = 5)
					String fetch(String id) {
						return id;
					}

				}
				"""));
	}

	@Test
	void aSuperclassTheRecipeCannotSeeLeavesTheMethodWhole() {
		// Spring Retry would take a fitting @Recover of the superclass as the recovery; with the superclass
		// off the recipe's class path, migrating would drop it unseen.
		String retryable = """
				package com.example;

				import org.springframework.retry.annotation.Retryable;

				class Quotes extends com.vendor.RetryingClient {

					%s@Retryable
					String fetch(String id) {
						return id;
					}

				}
				""";
		rewriteRun((spec) -> spec.typeValidationOptions(org.openrewrite.test.TypeValidation.none()),
				java(retryable.formatted(""), retryable.formatted("// Backoff migration: left on Spring Retry, its superclass "
						+ "com.vendor.RetryingClient is not on the recipe's class path: a @Recover method there would be its "
						+ "recovery (see docs/migrating.md)\n\t")));
	}

	@Test
	void recoverInheritedFromASuperclassBecomesTheFallback() {
		// Spring Retry finds the superclass's @Recover for the subclass's @Retryable; so does Backoff's fallback lookup.
		rewriteRun(java("""
				package com.example;

				import java.io.IOException;

				import org.springframework.retry.annotation.Recover;

				class BaseClient {

					@Recover
					String cached(IOException failure, String id) {
						return "cached";
					}

				}
				""", """
				package com.example;

				import java.io.IOException;

				class BaseClient {

					String cached(IOException failure, String id) {
						return "cached";
					}

				}
				"""), java("""
				package com.example;

				import java.io.IOException;

				import org.springframework.retry.annotation.Retryable;

				class QuoteClient extends BaseClient {

					@Retryable
					String fetch(String id) throws IOException {
						return id;
					}

				}
				""", """
				package com.example;

				import dev.backoff.Backoff;
				import dev.backoff.Jitter;

				import java.io.IOException;

				class QuoteClient extends BaseClient {

					// Backoff migration, not exact: the fallback cached is a superclass's @Recover, which Spring Retry 2.0 did not call (it looks among the bean class's own methods: ExhaustedRetryException), Spring Retry 1.3 did, and Backoff does (see docs/migrating.md)
					@Backoff(baseDelay = "1s", multiplier = "1", jitter = Jitter.NONE, fallback = "cached")
					String fetch(String id) throws IOException {
						return id;
					}

				}
				"""));
	}

	@Test
	void recoverInheritedFromASuperclassIsFoundBesideTheClassOwnRecoverForAnotherMethod() {
		// Spring Retry looks through the whole hierarchy for each method: a @Recover of the class that fits
		// another method does not hide the superclass's one that fits this method.
		rewriteRun(java("""
				package com.example;

				import java.io.IOException;

				import org.springframework.retry.annotation.Recover;

				class BaseClient {

					@Recover
					String cached(IOException failure, String id) {
						return "cached";
					}

				}
				""", """
				package com.example;

				import java.io.IOException;

				class BaseClient {

					String cached(IOException failure, String id) {
						return "cached";
					}

				}
				"""), java("""
				package com.example;

				import java.io.IOException;

				import org.springframework.retry.annotation.Recover;
				import org.springframework.retry.annotation.Retryable;

				class QuoteClient extends BaseClient {

					@Retryable
					String fetch(String id) throws IOException {
						return id;
					}

					@Retryable
					int count(int page) throws IOException {
						return page;
					}

					@Recover
					int none(IOException failure, int page) {
						return 0;
					}

				}
				""", """
				package com.example;

				import java.io.IOException;

				import dev.backoff.Backoff;
				import dev.backoff.Jitter;

				class QuoteClient extends BaseClient {

					// Backoff migration, not exact: the fallback cached is a superclass's @Recover, which Spring Retry 2.0 did not call (it looks among the bean class's own methods: ExhaustedRetryException), Spring Retry 1.3 did, and Backoff does (see docs/migrating.md)
					@Backoff(baseDelay = "1s", multiplier = "1", jitter = Jitter.NONE, fallback = "cached")
					String fetch(String id) throws IOException {
						return id;
					}

					@Backoff(baseDelay = "1s", multiplier = "1", jitter = Jitter.NONE, fallback = "none")
					int count(int page) throws IOException {
						return page;
					}

					int none(IOException failure, int page) {
						return 0;
					}

				}
				"""));
	}

	@Test
	void retryCountReadsBecomeTheCurrentAttempt() {
		// Spring Retry's count is 0 on the first attempt; CurrentAttempt.number() is 1 there.
		rewriteRun(java("""
				package com.example;

				import org.springframework.retry.annotation.Retryable;
				import org.springframework.retry.support.RetrySynchronizationManager;

				class Quotes {

					@Retryable
					String fetch(String id) {
						return id + RetrySynchronizationManager.getContext().getRetryCount();
					}

				}
				""", """
				package com.example;

				import dev.backoff.Backoff;
				import dev.backoff.CurrentAttempt;
				import dev.backoff.Jitter;

				class Quotes {

					@Backoff(baseDelay = "1s", multiplier = "1", jitter = Jitter.NONE)
					String fetch(String id) {
						return id + (CurrentAttempt.number() - 1);
					}

				}
				"""));
	}

	@Test
	void retryCountReadsInTheImplementationOfAnAnnotatedInterfaceMethodMigrateWithIt() {
		rewriteRun(java("""
				package com.example;

				import org.springframework.retry.annotation.Retryable;

				interface QuoteSource {

					@Retryable
					String fetch(String id);

				}
				""", """
				package com.example;

				import dev.backoff.Backoff;
				import dev.backoff.Jitter;

				interface QuoteSource {

					@Backoff(baseDelay = "1s", multiplier = "1", jitter = Jitter.NONE)
					String fetch(String id);

				}
				"""), java("""
				package com.example;

				import org.springframework.retry.support.RetrySynchronizationManager;

				class RemoteQuoteSource implements QuoteSource {

					@Override
					public String fetch(String id) {
						return id + RetrySynchronizationManager.getContext().getRetryCount();
					}

				}
				""", """
				package com.example;

				import dev.backoff.CurrentAttempt;

				class RemoteQuoteSource implements QuoteSource {

					@Override
					public String fetch(String id) {
						return id + (CurrentAttempt.number() - 1);
					}

				}
				"""));
	}

	@Test
	void otherReadsInTheImplementationOfAnAnnotatedInterfaceMethodLeaveItWhole() {
		rewriteRun(java("""
				package com.example;

				import org.springframework.retry.annotation.Retryable;

				interface QuoteSource {

					@Retryable
					String fetch(String id);

				}
				""", """
				package com.example;

				import org.springframework.retry.annotation.Retryable;

				interface QuoteSource {

					// Backoff migration: left on Spring Retry, an implementation or override reads RetrySynchronizationManager beyond getContext().getRetryCount() (the context's attributes, its last failure, or the count in a lambda or an anonymous class, which may run on another thread or after the attempt) (see docs/migrating.md)
					@Retryable
					String fetch(String id);

				}
				"""), java("""
				package com.example;

				import org.springframework.retry.support.RetrySynchronizationManager;

				class RemoteQuoteSource implements QuoteSource {

					@Override
					public String fetch(String id) {
						return id + RetrySynchronizationManager.getContext().getAttribute("replica");
					}

				}
				""", """
				package com.example;

				import org.springframework.retry.support.RetrySynchronizationManager;

				// Backoff migration: left on Spring Retry, uses RetrySynchronizationManager: migrate to BackoffExecutor by hand (see docs/migrating.md)
				class RemoteQuoteSource implements QuoteSource {

					@Override
					public String fetch(String id) {
						return id + RetrySynchronizationManager.getContext().getAttribute("replica");
					}

				}
				"""));
	}

}
