package dev.backoff.rewrite;

import java.io.IOException;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

import dev.backoff.rewrite.Differential.Kind;
import dev.backoff.rewrite.Differential.Row;
import org.jspecify.annotations.Nullable;
import org.openrewrite.ExecutionContext;
import org.openrewrite.Result;
import org.openrewrite.SourceFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one run behind every differential test class: the rows of all of them are written once,
 * parsed once, migrated by one run of each recipe, compiled in one {@code javac} call per side
 * and class path, and run, each row in a context of its own; each class then checks its own rows.
 * A subject's rows (and its runners) live in a package of their own, {@code rows.<subject>}:
 * two tables may give a row the same name.
 */
final class DifferentialRun {

	/** Every subject, each given by its test class. */
	private static final List<Subject> SUBJECTS = List.of(SpringRetryDifferentialTests.SUBJECT,
			SpringRetryMoreRowsDifferentialTests.SUBJECT, FrameworkRetryableDifferentialTests.SUBJECT);

	private static @Nullable Map<String, Runs> runs;

	/** Why the run failed: each class then fails with it, rather than running it again. */
	private static @Nullable Exception failure;

	private DifferentialRun() {
	}

	/** @return what the subject's rows did, all subjects run at the first call */
	static synchronized Runs of(Subject subject) throws Exception {
		assertThat(SUBJECTS).as("the subjects the run knows").contains(subject);
		if (runs == null && failure == null) {
			try {
				runs = runAll();
			}
			catch (Exception | AssertionError ex) {
				failure = new IllegalStateException("the differential run failed", ex);
			}
		}
		if (failure != null) {
			throw failure;
		}
		return runs.get(subject.name());
	}

	private static Map<String, Runs> runAll() throws Exception {
		Path dir = Files.createTempDirectory("backoff-differential");
		try {
			return runAll(dir);
		}
		finally {
			try (Stream<Path> files = Files.walk(dir)) {
				for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
					Files.delete(file);
				}
			}
		}
	}

	private static Map<String, Runs> runAll(Path dir) throws Exception {
		List<Path> classpath = InProcess.testClasspath();
		Path before = dir.resolve("before");
		// Migrated code runs without Spring Retry on its class path, so that nothing can still lean on it;
		// code the recipe leaves on it, and Framework's, runs with the whole test class path.
		Path after = dir.resolve("after");
		Path afterWithSpringRetry = dir.resolve("after-with-spring-retry");
		List<Path> rowSources = new ArrayList<>();
		for (Subject subject : SUBJECTS) {
			for (Row row : subject.rows()) {
				for (Map.Entry<String, String> file : row.files().entrySet()) {
					rowSources.add(write(before, subject, file.getKey(), file.getValue()));
				}
			}
		}
		// The runners are written after the parse: a recipe must not see their @EnableRetry.
		ExecutionContext ctx = InProcess.context();
		List<SourceFile> parsed = InProcess.parse(before, rowSources, classpath, ctx);
		Map<String, String> printed = migrate(parsed, ctx);
		Map<String, Runs> results = new LinkedHashMap<>();
		for (Subject subject : SUBJECTS) {
			write(before, subject, "RowRunner", subject.beforeRunner());
			Map<String, String> migrated = new LinkedHashMap<>();
			for (Side side : subject.after()) {
				Path to = side.springRetry() ? afterWithSpringRetry : after;
				assertThat(to.resolve(subject.path("RowRunner"))).as("one runner of %s on each class path", subject.name())
					.doesNotExist();
				write(to, subject, "RowRunner", side.runner());
				for (Row row : side.rows()) {
					for (String file : row.files().keySet()) {
						String source = printed.get(subject.path(file));
						Files.writeString(to.resolve(subject.path(file)), source);
						migrated.merge(row.name(), source, String::concat);
					}
				}
			}
			results.put(subject.name(), new Runs(new LinkedHashMap<>(), new LinkedHashMap<>(), migrated));
		}
		run(before, classpath, dir.resolve("before-classes"), (subject) -> List.of(subject.rows()),
				(subject) -> results.get(subject.name()).before());
		run(after, InProcess.withoutSpringRetry(classpath), dir.resolve("after-classes"),
				(subject) -> subject.after().stream().filter((side) -> !side.springRetry()).map(Side::rows).toList(),
				(subject) -> results.get(subject.name()).after());
		run(afterWithSpringRetry, classpath, dir.resolve("after-with-spring-retry-classes"),
				(subject) -> subject.after().stream().filter(Side::springRetry).map(Side::rows).toList(),
				(subject) -> results.get(subject.name()).after());
		return results;
	}

	/** @return every row file's source after its subject's recipe, by path: one run of each recipe over its subjects' rows */
	private static Map<String, String> migrate(List<SourceFile> parsed, ExecutionContext ctx) {
		Map<String, String> printed = new LinkedHashMap<>();
		parsed.forEach((source) -> printed.put(source.getSourcePath().toString(), source.printAll()));
		Map<String, List<SourceFile>> byRecipe = new LinkedHashMap<>();
		for (Subject subject : SUBJECTS) {
			List<SourceFile> own = parsed.stream()
				.filter((source) -> source.getSourcePath().startsWith(Path.of("rows", subject.name())))
				.toList();
			byRecipe.computeIfAbsent(subject.recipe(), (recipe) -> new ArrayList<>()).addAll(own);
		}
		byRecipe.forEach((recipe, sources) -> {
			for (Result result : InProcess.run(recipe, sources, ctx)) {
				if (result.getAfter() != null) {
					printed.put(result.getAfter().getSourcePath().toString(), result.getAfter().printAll());
				}
			}
		});
		return printed;
	}

	/**
	 * Compiles the sources under {@code dir} in one call and runs, in one loader, each subject's
	 * rows of {@code sides} with the subject's runner, a random row {@code randomCalls} times.
	 */
	private static void run(Path dir, List<Path> classpath, Path out, Function<Subject, List<List<Row>>> sides,
			Function<Subject, Map<String, List<String>>> results) throws Exception {
		InProcess.compile(InProcess.javaSources(dir), classpath, out);
		Thread thread = Thread.currentThread();
		ClassLoader previous = thread.getContextClassLoader();
		try (URLClassLoader loader = InProcess.loader(out, classpath)) {
			thread.setContextClassLoader(loader);
			for (Subject subject : SUBJECTS) {
				List<Row> rows = sides.apply(subject).stream().flatMap(List::stream).toList();
				if (rows.isEmpty()) {
					continue;
				}
				@SuppressWarnings("unchecked")
				Function<String, String> runner = (Function<String, String>) loader
					.loadClass(subject.className("RowRunner"))
					.getConstructor()
					.newInstance();
				for (Row row : rows) {
					int calls = (row.kind() == Kind.RANDOM) ? subject.randomCalls() : 1;
					String runs = runner.apply(subject.className(row.className()) + " " + calls);
					results.apply(subject).put(row.name(), List.of(runs.split("\n")));
				}
			}
		}
		finally {
			thread.setContextClassLoader(previous);
		}
	}

	/** Writes a file of the subject's, in the subject's package. */
	private static Path write(Path dir, Subject subject, String file, String source) throws IOException {
		assertThat(source).as(file).contains("package rows;");
		Path path = dir.resolve(subject.path(file));
		Files.createDirectories(path.getParent());
		return Files.writeString(path, source.replace("package rows;", "package rows." + subject.name() + ";"));
	}

	/**
	 * The rows of one test class.
	 * @param name the package of its rows under {@code rows}
	 * @param recipe the recipe that migrates them
	 * @param beforeRunner the runner of its rows before the recipe, under the library they were written for
	 * @param randomCalls how many times a random row is called on each side
	 * @param after its rows, by how they run after the recipe
	 */
	record Subject(String name, String recipe, String beforeRunner, int randomCalls, List<Side> after) {

		List<Row> rows() {
			return this.after.stream().flatMap((side) -> side.rows().stream()).toList();
		}

		Row row(String name) {
			return rows().stream().filter((row) -> row.name().equals(name)).findFirst().orElseThrow();
		}

		String path(String file) {
			return "rows/" + this.name + "/" + file + ".java";
		}

		String className(String simpleName) {
			return "rows." + this.name + "." + simpleName;
		}

	}

	/**
	 * Rows that run, after the recipe, with {@code runner} ({@link Differential#RUNNER} formatted), with or
	 * without Spring Retry on the class path.
	 */
	record Side(List<Row> rows, String runner, boolean springRetry) {

	}

	/** What a subject's rows did, by row name: their runs before and after the recipe, and their migrated source. */
	record Runs(Map<String, List<String>> before, Map<String, List<String>> after, Map<String, String> migrated) {

		/** Checks an exact row: the same runs on both sides, and the recipe's {@code note} if and only if the row expects it. */
		void assertAlike(Row row, String note) {
			assertThat(this.after.get(row.name())).as(row.name()).isEqualTo(this.before.get(row.name()));
			assertThat(this.migrated.get(row.name()).contains(note)).as(row.name() + " noted").isEqualTo(row.noted());
		}

	}

}
