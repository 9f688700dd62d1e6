package dev.backoff.rewrite;

import org.junit.jupiter.api.Test;
import org.openrewrite.InMemoryExecutionContext;
import org.openrewrite.Recipe;
import org.openrewrite.config.Environment;
import org.openrewrite.maven.MavenExecutionContextView;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.openrewrite.java.Assertions.java;
import static org.openrewrite.java.Assertions.mavenProject;
import static org.openrewrite.java.Assertions.srcMainJava;
import static org.openrewrite.maven.Assertions.pomXml;

/**
 * The recipes on a Maven build: spring-retry removed only when no Spring Retry code is left,
 * and the starter added only to Spring Boot modules. Maven Central is off: the poms resolve from
 * the local repository, which holds spring-retry 2.0.13 (this module's test dependency).
 * <p>
 * Adding the starter itself is {@code org.openrewrite.maven.AddDependency}'s work and resolves
 * the starter's pom, which no repository holds before a release: it is not run here; the
 * recipe list and the starter's version are checked instead.
 */
class MavenBuildTests implements RewriteTest {

	@Override
	public void defaults(RecipeSpec spec) {
		InMemoryExecutionContext ctx = new InMemoryExecutionContext((failure) -> {
			throw new AssertionError(String.valueOf(failure), failure);
		});
		MavenExecutionContextView.view(ctx).setAddCentralRepository(false);
		spec.recipe(new MigrateSpringRetryCode())
			.parser(Parsers.withRetryTypes())
			.beforeRecipe(Parsers.templatesReadTheLibraryTypes())
			.executionContext(ctx);
	}

	private static String pom(String dependencies) {
		return """
				<project>
				  <modelVersion>4.0.0</modelVersion>
				  <groupId>com.example</groupId>
				  <artifactId>quotes</artifactId>
				  <version>1.0</version>
				%s</project>
				""".formatted(dependencies);
	}

	private static final String SPRING_RETRY = """
			  <dependencies>
			    <dependency>
			      <groupId>org.springframework.retry</groupId>
			      <artifactId>spring-retry</artifactId>
			      <version>2.0.13</version>
			    </dependency>
			  </dependencies>
			""";

	@Test
	void springRetryRemovedWhenNothingIsLeft() {
		rewriteRun(mavenProject("quotes", srcMainJava(java("""
				package com.example;

				import org.springframework.retry.annotation.Retryable;

				class Quotes {

					@Retryable
					String fetch(String id) {
						return id;
					}

				}
				""", (spec) -> spec.after((actual) -> {
					assertThat(actual).contains("@Backoff(");
					return actual;
				}))), pomXml(pom(SPRING_RETRY), pom(""))));
	}

	@Test
	void springRetryKeptWhileSpringRetryCodeIsLeft() {
		rewriteRun(spec -> spec.dataTable(MigrationReport.Row.class, (rows) -> assertThat(rows)
			.extracting(MigrationReport.Row::element)
			.contains("Prices", "org.springframework.retry:spring-retry")),
				mavenProject("quotes", srcMainJava(java("""
						package com.example;

						import org.springframework.retry.support.RetryTemplate;

						class Prices {

							private final RetryTemplate template = new RetryTemplate();

						}
						""", (spec) -> spec.after((actual) -> {
							assertThat(actual).contains("// Backoff migration: left on Spring Retry");
							return actual;
						}))), pomXml(pom(SPRING_RETRY))));
	}

	@Test
	void noStarterWithoutSpringBoot() {
		// A plain Spring application: backoff-spring (with @EnableBackoff) is for the user to add.
		rewriteRun(spec -> spec.recipe(new AddBackoffStarter("org.springframework.retry.annotation.*", null)),
				mavenProject("quotes", srcMainJava(java("""
						package com.example;

						import org.springframework.retry.annotation.Retryable;

						class Quotes {

							@Retryable
							String fetch(String id) {
								return id;
							}

						}
						""")), pomXml(pom(SPRING_RETRY))));
	}

	@Test
	void theDeclarativeRecipesAddTheStarterAtTheRecipesVersion() {
		Environment environment = Environment.builder().scanRuntimeClasspath("dev.backoff.rewrite").build();
		for (String name : new String[] { "dev.backoff.rewrite.MigrateSpringRetry",
				"dev.backoff.rewrite.MigrateFrameworkRetryable" }) {
			Recipe recipe = environment.activateRecipes(name);
			assertThat(recipe.getName()).isEqualTo(name);
			assertThat(recipe.getRecipeList()).hasSize(2).first().isInstanceOf(AddBackoffStarter.class);
		}
		// The version the recipes' own build filtered in: the starter released with them.
		assertThat(AddBackoffStarter.version()).isNotBlank().doesNotContain("${");
	}

}
