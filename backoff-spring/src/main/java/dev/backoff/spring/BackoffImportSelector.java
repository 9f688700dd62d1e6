package dev.backoff.spring;

import org.springframework.context.annotation.DeferredImportSelector;
import org.springframework.core.Ordered;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Imports {@link BackoffConfiguration} after every other configuration, Spring Boot's
 * auto-configurations included (they are deferred too, at a higher precedence), so that it
 * can see whether Backoff's auto-configuration has defined the runtime already.
 */
final class BackoffImportSelector implements DeferredImportSelector, Ordered {

	@Override
	public String[] selectImports(AnnotationMetadata metadata) {
		return new String[] { BackoffConfiguration.class.getName() };
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

}
