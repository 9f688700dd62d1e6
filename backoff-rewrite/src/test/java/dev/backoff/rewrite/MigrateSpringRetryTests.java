package dev.backoff.rewrite;

import org.junit.jupiter.api.Test;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;

import static org.openrewrite.java.Assertions.java;

class MigrateSpringRetryTests implements RewriteTest {

	@Override
	public void defaults(RecipeSpec spec) {
		spec.recipe(new MigrateSpringRetryCode()).parser(Parsers.withRetryTypes());
	}

	@Test
	void defaultsAreOneSecondFixed() {
		rewriteRun(java("""
				package com.example;

				import org.springframework.retry.annotation.Retryable;

				class Quotes {

					@Retryable
					String fetch(String id) {
						return id;
					}

				}
				""", """
				package com.example;

				import dev.backoff.Backoff;
				import dev.backoff.Jitter;

				class Quotes {

					@Backoff(baseDelay = "1s", multiplier = "1", jitter = Jitter.NONE)
					String fetch(String id) {
						return id;
					}

				}
				"""));
	}

}
