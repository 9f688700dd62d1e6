package dev.backoff.rewrite;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.openrewrite.java.JavaParser;

/**
 * The parser the recipes' tests give their sources to: Spring Retry's, Framework's and our
 * annotations from the jars (or classes folders) of the test class path, found through a class
 * of each, and {@code @EnableBackoff}, which backoff-spring will hold, as a stub.
 */
final class Parsers {

	private Parsers() {
	}

	static JavaParser.Builder<?, ?> withRetryTypes() {
		List<Path> classpath = new ArrayList<>();
		for (Class<?> type : List.of(org.springframework.retry.annotation.Retryable.class,
				org.springframework.resilience.annotation.Retryable.class, dev.backoff.Backoff.class,
				org.springframework.core.annotation.AliasFor.class)) {
			classpath.add(location(type));
		}
		return JavaParser.fromJavaVersion().classpath(classpath).dependsOn(Stubs.ENABLE_BACKOFF);
	}

	private static Path location(Class<?> type) {
		try {
			return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
