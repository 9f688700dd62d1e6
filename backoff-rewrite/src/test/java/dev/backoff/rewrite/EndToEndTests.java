package dev.backoff.rewrite;

import java.io.IOException;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openrewrite.Result;
import org.openrewrite.SourceFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The end-to-end test of issue 31, in-process to stay cheap (no nested Maven): the Spring Retry
 * application under {@code src/test/resources/e2e} is compiled and its own tests run against
 * Spring Retry; {@code dev.backoff.rewrite.MigrateSpringRetry} then rewrites its sources, and the
 * migrated application is compiled and the same, unchanged, tests run against Backoff, with
 * spring-retry off the class path so that nothing can still lean on it.
 */
class EndToEndTests {

	private static final List<String> TEST_CLASSES = List.of("com.example.quotes.QuoteServiceTests");

	/** Runs the application's tests with the JUnit Platform of the application's own class loader. */
	private static final String LAUNCHER = """
			import java.util.*;
			import java.util.function.Function;
			import org.junit.platform.engine.TestExecutionResult;
			import org.junit.platform.engine.discovery.DiscoverySelectors;
			import org.junit.platform.launcher.*;
			import org.junit.platform.launcher.core.*;

			public class AppTestLauncher implements Function<List<String>, Map<String, String>> {

				@Override
				public Map<String, String> apply(List<String> classNames) {
					Map<String, String> results = new TreeMap<>();
					LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
					classNames.forEach((name) -> request.selectors(DiscoverySelectors.selectClass(name)));
					LauncherFactory.create().execute(request.build(), new TestExecutionListener() {
						@Override
						public void executionFinished(TestIdentifier test, TestExecutionResult result) {
							if (test.isTest()) {
								results.put(test.getDisplayName(), result.getStatus()
										+ result.getThrowable().map((failure) -> ": " + failure).orElse(""));
							}
						}
					});
					return results;
				}

			}
			""";

	@TempDir
	Path dir;

	@Test
	void theApplicationsTestsPassAgainstSpringRetryAndAgainstBackoffAfterTheMigration() throws Exception {
		Path app = copy(Path.of("src/test/resources/e2e"), this.dir.resolve("app"));
		List<Path> classpath = InProcess.testClasspath();
		List<Path> withoutSpringRetry = InProcess.withoutSpringRetry(classpath);
		assertThat(withoutSpringRetry).hasSize(classpath.size() - 1);

		Map<String, String> before = compileAndTest(app, classpath, this.dir.resolve("before"));
		assertThat(before).hasSize(5).allSatisfy((test, result) -> assertThat(result).isEqualTo("SUCCESSFUL"));

		List<Path> changed = migrate(app, classpath);
		// The application's own code only: its tests stay as they were.
		assertThat(changed).allMatch((source) -> source.startsWith("src/main/java")).hasSize(5);
		for (Path source : changed) {
			assertThat(Files.readString(app.resolve(source))).doesNotContain("org.springframework.retry", Comments.TAG);
		}

		Map<String, String> after = compileAndTest(app, withoutSpringRetry, this.dir.resolve("after"));
		assertThat(after).isEqualTo(before);
	}

	/** @return the sources the recipe changed, relative to the application */
	private static List<Path> migrate(Path app, List<Path> classpath) throws IOException {
		List<Path> changed = new ArrayList<>();
		for (Result result : InProcess.migrate(app, classpath)) {
			SourceFile after = result.getAfter();
			assertThat(after).isNotNull();
			Files.writeString(app.resolve(after.getSourcePath()), after.printAll());
			changed.add(after.getSourcePath());
		}
		return changed;
	}

	/** Compiles the application and its tests into {@code out}, and runs the tests. */
	private static Map<String, String> compileAndTest(Path app, List<Path> classpath, Path out) throws Exception {
		Files.createDirectories(out);
		Path launcher = Files.writeString(out.resolve("AppTestLauncher.java"), LAUNCHER);
		List<Path> sources = new ArrayList<>(InProcess.javaSources(app));
		sources.add(launcher);
		InProcess.compile(sources, classpath, out);
		// The platform loader as parent: the application sees only the class path given, not this test's.
		Thread thread = Thread.currentThread();
		ClassLoader previous = thread.getContextClassLoader();
		try (URLClassLoader loader = InProcess.loader(out, classpath)) {
			thread.setContextClassLoader(loader);
			@SuppressWarnings("unchecked")
			Function<List<String>, Map<String, String>> tests = (Function<List<String>, Map<String, String>>) loader
				.loadClass("AppTestLauncher").getConstructor().newInstance();
			return new LinkedHashMap<>(tests.apply(TEST_CLASSES));
		}
		finally {
			thread.setContextClassLoader(previous);
		}
	}

	private static Path copy(Path from, Path to) throws IOException {
		try (Stream<Path> files = Files.walk(from)) {
			for (Path file : files.toList()) {
				Path target = to.resolve(from.relativize(file).toString());
				if (Files.isDirectory(file)) {
					Files.createDirectories(target);
				}
				else {
					Files.copy(file, target);
				}
			}
		}
		return to;
	}

}
