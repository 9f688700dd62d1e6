package dev.backoff.rewrite;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.openrewrite.InMemoryExecutionContext;
import org.openrewrite.SourceFile;
import org.openrewrite.Tree;
import org.openrewrite.java.JavaParser;
import org.openrewrite.java.internal.DefaultJavaTypeFactory;
import org.openrewrite.java.internal.JavaTypeCache;
import org.openrewrite.java.internal.JavaTypeFactory;
import org.openrewrite.java.marker.JavaSourceSet;
import org.openrewrite.java.tree.JavaSourceFile;
import org.openrewrite.test.UncheckedConsumer;

/**
 * The parser the recipes' tests give their sources to: Spring Retry's, Framework's and our
 * annotations from the jars (or classes folders) of the test class path, found through a class
 * of each, and {@code @EnableBackoff}, which backoff-spring will hold, as a stub.
 */
final class Parsers {

	private static final List<Path> CLASSPATH = List.of(location(org.springframework.retry.annotation.Retryable.class),
			location(org.springframework.resilience.annotation.Retryable.class), location(dev.backoff.Backoff.class),
			location(org.springframework.core.annotation.AliasFor.class));

	/**
	 * The libraries' types (the JDK's, Spring Retry's, Framework's), as OpenRewrite maps them, once
	 * for all the tests: mapping them anew was most of a test's time (a parse of one small class
	 * took ~250 ms with an empty cache, ~30 ms reading through this one). Each parser reads through
	 * it and writes to a cache of its own (each test builds its parser anew), so no test sees
	 * another's classes; after this class's initialisation it is only read, from both test threads.
	 */
	private static final JavaTypeCache LIBRARY_TYPES = libraryTypes();

	private Parsers() {
	}

	static JavaParser.Builder<?, ?> withRetryTypes() {
		return JavaParser.fromJavaVersion()
			.classpath(CLASSPATH)
			.dependsOn(Stubs.ENABLE_BACKOFF)
			.typeFactory(new DefaultJavaTypeFactory(JavaTypeCache.withBase(LIBRARY_TYPES)));
	}

	/**
	 * @return what gives each source a source set whose type factory reads through the libraries'
	 * types: the recipes' templates parse with it, rather than mapping the JDK's types for each template
	 */
	static UncheckedConsumer<List<SourceFile>> templatesReadTheLibraryTypes() {
		return (sources) -> {
			JavaTypeFactory types = new DefaultJavaTypeFactory(JavaTypeCache.withBase(LIBRARY_TYPES));
			sources.replaceAll((source) -> {
				if (!(source instanceof JavaSourceFile)) {
					return source;
				}
				JavaSourceSet sourceSet = source.getMarkers()
					.findFirst(JavaSourceSet.class)
					.map((set) -> new JavaSourceSet(set.getId(), set.getName(), set.getClasspath(), set.getGavToTypes(), types))
					.orElseGet(() -> new JavaSourceSet(Tree.randomId(), "main", List.of(), Map.of(), types));
				return source.withMarkers(source.getMarkers().computeByType(sourceSet, (existing, replacing) -> replacing));
			});
		};
	}

	/** @return a cache holding the types the tests' sources use, mapped by parsing a class that uses them */
	private static JavaTypeCache libraryTypes() {
		JavaTypeCache types = new JavaTypeCache();
		JavaParser.fromJavaVersion().classpath(CLASSPATH).typeFactory(new DefaultJavaTypeFactory(types)).build().parse(new InMemoryExecutionContext(), """
				package warmup;

				import java.io.IOException;
				import java.lang.annotation.Retention;
				import java.lang.annotation.RetentionPolicy;
				import java.lang.reflect.Method;
				import java.util.concurrent.CompletableFuture;
				import java.util.concurrent.TimeUnit;

				import org.springframework.context.annotation.Configuration;
				import org.springframework.core.annotation.AliasFor;
				import org.springframework.resilience.annotation.ConcurrencyLimit;
				import org.springframework.resilience.annotation.EnableResilientMethods;
				import org.springframework.resilience.retry.MethodRetryPredicate;
				import org.springframework.retry.annotation.Backoff;
				import org.springframework.retry.annotation.CircuitBreaker;
				import org.springframework.retry.annotation.EnableRetry;
				import org.springframework.retry.annotation.Recover;
				import org.springframework.retry.annotation.Retryable;
				import org.springframework.retry.support.RetrySynchronizationManager;
				import org.springframework.retry.support.RetryTemplate;

				@Configuration
				@EnableRetry
				@EnableResilientMethods
				@Retention(RetentionPolicy.RUNTIME)
				@interface Warmup {

					@AliasFor(annotation = Retryable.class, attribute = "maxAttempts")
					int attempts() default 3;

					@Retryable(retryFor = IOException.class, backoff = @Backoff(delay = 100, multiplier = 2))
					@org.springframework.resilience.annotation.Retryable(maxRetries = 3, timeUnit = TimeUnit.SECONDS)
					@ConcurrencyLimit(1)
					@CircuitBreaker
					@Recover
					class Uses {

						CompletableFuture<String> fetch(Method method, MethodRetryPredicate predicate, RetryTemplate template) {
							return CompletableFuture.completedFuture(String.valueOf(RetrySynchronizationManager.getContext().getRetryCount()));
						}

					}

				}
				""").toList();
		return types;
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
