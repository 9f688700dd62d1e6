package dev.backoff.autoconfigure;

import dev.backoff.autoconfigure.SpringBootVersionCheck.UnsupportedSpringBootException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports {@link SpringBootVersionCheck}'s refusal: the Spring Boot found, the one Backoff
 * needs, and what to do. Loaded by Spring Boot versions older than 4.0, so it uses only what
 * they have.
 */
public class SpringBootVersionFailureAnalyzer extends AbstractFailureAnalyzer<UnsupportedSpringBootException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnsupportedSpringBootException cause) {
		return new FailureAnalysis(cause.getMessage(),
				"Upgrade to Spring Boot 4.0 or later (Backoff is tested on 4.0 and 4.1), "
						+ "or remove backoff-spring-boot-starter.",
				cause);
	}

}
