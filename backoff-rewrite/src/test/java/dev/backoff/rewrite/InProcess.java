package dev.backoff.rewrite;

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.openrewrite.ExecutionContext;
import org.openrewrite.InMemoryExecutionContext;
import org.openrewrite.Recipe;
import org.openrewrite.Result;
import org.openrewrite.SourceFile;
import org.openrewrite.Tree;
import org.openrewrite.config.Environment;
import org.openrewrite.internal.InMemoryLargeSourceSet;
import org.openrewrite.java.JavaParser;
import org.openrewrite.java.internal.DefaultJavaTypeFactory;
import org.openrewrite.java.internal.JavaTypeCache;
import org.openrewrite.java.internal.JavaTypeFactory;
import org.openrewrite.java.marker.JavaSourceSet;
import org.openrewrite.tree.ParseError;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the end-to-end and differential tests do in-process, to stay cheap (no nested Maven):
 * run a recipe over a folder's sources, compile sources with {@code javac},
 * and load the classes with only a given class path.
 */
final class InProcess {

	private InProcess() {
	}

	/** @return {@code MigrateSpringRetry}'s results over every {@code .java} file under {@code dir} */
	static List<Result> migrate(Path dir, List<Path> classpath) throws IOException {
		return migrate(dir, classpath, "dev.backoff.rewrite.MigrateSpringRetry");
	}

	/** @return the recipe's results over every {@code .java} file under {@code dir}, parsed against {@code classpath} */
	static List<Result> migrate(Path dir, List<Path> classpath, String recipeName) throws IOException {
		ExecutionContext ctx = context();
		return run(recipeName, parse(dir, javaSources(dir), classpath, ctx), ctx);
	}

	/**
	 * @return the {@code sources}, parsed against {@code classpath}, their paths relative to {@code dir}, in a
	 * source set that carries the parser's types: the recipes' templates parse with them
	 */
	static List<SourceFile> parse(Path dir, List<Path> sources, List<Path> classpath, ExecutionContext ctx) {
		// Without it, each template the recipes apply maps the JDK's types anew: ~200 ms a row.
		JavaTypeFactory types = new DefaultJavaTypeFactory(new JavaTypeCache());
		JavaSourceSet sourceSet = new JavaSourceSet(Tree.randomId(), "main", List.of(), Map.of(), types);
		List<SourceFile> parsed = JavaParser.fromJavaVersion()
			.classpath(classpath)
			.typeFactory(types)
			.build()
			.parse(sources, dir, ctx)
			.<SourceFile>map((source) -> source.withMarkers(source.getMarkers().add(sourceSet)))
			.toList();
		assertThat(parsed).noneMatch(ParseError.class::isInstance);
		return parsed;
	}

	/** @return the recipe's results over {@code sources} */
	static List<Result> run(String recipeName, List<SourceFile> sources, ExecutionContext ctx) {
		Recipe recipe;
		synchronized (Recipes.ENVIRONMENT) {
			recipe = Recipes.ENVIRONMENT.activateRecipes(recipeName);
		}
		return recipe.run(new InMemoryLargeSourceSet(sources), ctx).getChangeset().getAllResults();
	}

	/** @return a context in which any failure of the parser or the recipe fails the test */
	static ExecutionContext context() {
		return new InMemoryExecutionContext((failure) -> {
			throw new IllegalStateException(failure);
		});
	}

	static void compile(List<Path> sources, List<Path> classpath, Path out) throws IOException {
		Files.createDirectories(out);
		JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, null)) {
			List<String> options = List.of("-d", out.toString(), "-parameters", "-classpath",
					String.join(File.pathSeparator, classpath.stream().map(Path::toString).toList()), "-proc:none");
			boolean compiled = javac.getTask(null, files, diagnostics, options, null, files.getJavaFileObjectsFromPaths(sources))
				.call();
			assertThat(compiled).as("compiled: %s", diagnostics.getDiagnostics()).isTrue();
		}
	}

	/** @return a loader of {@code out} and {@code classpath} over the platform loader: it sees nothing of this test's */
	static URLClassLoader loader(Path out, List<Path> classpath) throws IOException {
		List<URL> urls = new ArrayList<>();
		urls.add(out.toUri().toURL());
		for (Path entry : classpath) {
			urls.add(entry.toUri().toURL());
		}
		return new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
	}

	/** @return this module's test class path but its own classes, the recipes and their tests */
	static List<Path> testClasspath() {
		Path recipes = location(MigrateSpringRetryCode.class);
		Path tests = location(InProcess.class);
		return Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
			.map(Path::of)
			.map(Path::toAbsolutePath)
			.filter((entry) -> !entry.equals(recipes) && !entry.equals(tests))
			.toList();
	}

	static List<Path> withoutSpringRetry(List<Path> classpath) {
		return classpath.stream().filter((entry) -> !entry.getFileName().toString().startsWith("spring-retry-")).toList();
	}

	static List<Path> javaSources(Path dir) throws IOException {
		try (Stream<Path> files = Files.walk(dir)) {
			return files.filter((file) -> file.toString().endsWith(".java")).sorted().toList();
		}
	}

	/** The recipes, found once: scanning the class path for them costs a test run each time. */
	private static final class Recipes {

		static final Environment ENVIRONMENT = Environment.builder().scanRuntimeClasspath("dev.backoff.rewrite").build();

	}

	private static Path location(Class<?> type) {
		try {
			return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toAbsolutePath();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
