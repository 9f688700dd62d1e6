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

import org.openrewrite.Result;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The harness of the differential tests: writes each row as a small bean, migrates all of them in
 * one recipe run, compiles each side in one {@code javac} call and runs every row in its own
 * {@code AnnotationConfigApplicationContext}. A run is reported as one line,
 * {@code attempts|outcome|waits}; a thrown outcome names which attempt's instance reached the
 * caller ({@code #k}) or {@code #new} for one no attempt threw, so that identity is compared too.
 */
final class Differential {

	/**
	 * The runner compiled beside the rows. Placeholders: the configuration's annotations, its extra
	 * beans and extra nested types (how each library records its waits).
	 */
	static final String RUNNER = """
			package rows;

			import java.lang.reflect.InvocationTargetException;
			import java.util.List;
			import java.util.concurrent.CompletionStage;
			import java.util.concurrent.CopyOnWriteArrayList;
			import java.util.concurrent.atomic.AtomicInteger;
			import java.util.function.Function;
			import org.springframework.context.annotation.AnnotationConfigApplicationContext;
			import org.springframework.context.annotation.Bean;
			import org.springframework.context.annotation.Configuration;

			public class RowRunner implements Function<String, String> {

				public static final List<Long> WAITS = new CopyOnWriteArrayList<>();

				/** Every failure a row's method threw, in order: which one reached the caller is compared. */
				public static final List<Throwable> THROWN = new CopyOnWriteArrayList<>();

				public static <T extends Throwable> T thrown(T failure) {
					THROWN.add(failure);
					return failure;
				}

				@Configuration
				%s
				public static class Config {

					@Bean
					public Settings quoteSettings() {
						return new Settings();
					}

					%s

				}

				public static class Settings {

					public double getMultiplier() {
						return 0.0;
					}

					public int getRetries() {
						return 4;
					}

					public int getAttempts() {
						return 4;
					}

					public long getDelay() {
						return 300;
					}

				}

				%s

				/** @param row the row's class, a space and how many calls to make in its context */
				@Override
				public String apply(String row) {
					String[] spec = row.split(" ");
					try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
						Class<?> type = Class.forName(spec[0]);
						context.register(Config.class, type);
						context.refresh();
						// A row whose bean implements an interface is proxied by it: looked up and called through it.
						Class<?> api = (type.getInterfaces().length > 0) ? type.getInterfaces()[0] : type;
						Object bean = context.getBean(api);
						StringBuilder runs = new StringBuilder();
						for (int i = 0; i < Integer.parseInt(spec[1]); i++) {
							runs.append(call(type, api, bean)).append('\\n');
						}
						return runs.toString();
					}
					catch (org.springframework.beans.BeansException ex) {
						Throwable root = ex.getMostSpecificCause();
						return "failed to start: " + root.getClass().getName() + ": " + root.getMessage() + "\\n";
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				}

				private static String call(Class<?> type, Class<?> api, Object bean) throws Exception {
					WAITS.clear();
					THROWN.clear();
					((AtomicInteger) type.getField("CALLS").get(null)).set(0);
					String outcome;
					try {
						Object value = api.getMethod("call").invoke(bean);
						if (value instanceof CompletionStage<?> stage) {
							value = stage.toCompletableFuture().join();
						}
						if (value instanceof reactor.core.publisher.Mono<?> mono) {
							value = mono.block();
						}
						outcome = "value " + value;
					}
					catch (InvocationTargetException ex) {
						outcome = threw(ex.getCause());
					}
					catch (java.util.concurrent.CompletionException ex) {
						outcome = threw(ex.getCause());
					}
					catch (RuntimeException ex) {
						outcome = threw(ex);
					}
					return type.getField("CALLS").get(null) + "|" + outcome + "|" + WAITS;
				}

				private static String threw(Throwable failure) {
					int attempt = -1;
					for (int i = 0; i < THROWN.size(); i++) {
						if (THROWN.get(i) == failure) {
							attempt = i + 1;
						}
					}
					return "threw " + failure.getClass().getName() + ": " + failure.getMessage() + " #"
							+ ((attempt > 0) ? attempt : "new");
				}

			}
			""";

	/** The Backoff side of every comparison: {@code @EnableBackoff} with a sleeper that records. */
	static final String BACKOFF_RUNNER = RUNNER.formatted("@dev.backoff.spring.EnableBackoff",
			"@Bean public dev.backoff.Sleeper sleeper() { return (delay) -> WAITS.add(delay.toMillis()); }", "");

	private Differential() {
	}

	/** @return each row's migrated source, by row name; the sources written under {@code to} */
	static Map<String, String> migrate(String recipeName, List<Row> rows, Path from, List<Path> classpath, Path to)
			throws Exception {
		Map<Path, String> printed = new LinkedHashMap<>();
		for (Path source : InProcess.javaSources(from)) {
			printed.put(from.relativize(source), Files.readString(source));
		}
		for (Result result : InProcess.migrate(from, classpath, recipeName)) {
			if (result.getAfter() != null) {
				printed.put(result.getAfter().getSourcePath(), result.getAfter().printAll());
			}
		}
		Map<String, String> byRow = new LinkedHashMap<>();
		for (Row row : rows) {
			for (String file : row.files().keySet()) {
				String source = printed.get(Path.of("rows/" + file + ".java"));
				Files.writeString(to.resolve("rows/" + file + ".java"), source);
				byRow.merge(row.name(), source, String::concat);
			}
		}
		return byRow;
	}

	/** Compiles the rows and the runner in one call, and runs every row in a loader of its own. */
	static Map<String, List<String>> run(List<Row> rows, Path sources, List<Path> classpath, Path out,
			int randomCalls) throws Exception {
		InProcess.compile(InProcess.javaSources(sources), classpath, out);
		Map<String, List<String>> results = new LinkedHashMap<>();
		Thread thread = Thread.currentThread();
		ClassLoader previous = thread.getContextClassLoader();
		try (URLClassLoader loader = InProcess.loader(out, classpath)) {
			thread.setContextClassLoader(loader);
			@SuppressWarnings("unchecked")
			Function<String, String> runner = (Function<String, String>) loader.loadClass("rows.RowRunner")
				.getConstructor()
				.newInstance();
			for (Row row : rows) {
				int calls = (row.kind() == Kind.RANDOM) ? randomCalls : 1;
				results.put(row.name(), List.of(runner.apply("rows." + row.className() + " " + calls).split("\n")));
			}
		}
		finally {
			thread.setContextClassLoader(previous);
		}
		return results;
	}

	/** Writes every row's files under {@code dir/rows}. */
	static void write(List<Row> rows, Path dir) throws IOException {
		Files.createDirectories(dir.resolve("rows"));
		for (Row row : rows) {
			for (Map.Entry<String, String> file : row.files().entrySet()) {
				Files.writeString(dir.resolve("rows/" + file.getKey() + ".java"), file.getValue());
			}
		}
	}

	static List<String> attemptsAndOutcomes(List<String> runs) {
		return runs.stream().map((run) -> run.substring(0, run.lastIndexOf('|'))).distinct().toList();
	}

	/** @return per retry, the shortest and longest wait over the runs, in ms */
	static long[][] bounds(List<String> runs) {
		List<long[]> bounds = new ArrayList<>();
		for (String run : runs) {
			String waits = run.substring(run.lastIndexOf('|') + 2, run.length() - 1);
			String[] values = waits.isEmpty() ? new String[0] : waits.split(", ");
			for (int i = 0; i < values.length; i++) {
				long wait = Long.parseLong(values[i]);
				if (bounds.size() <= i) {
					bounds.add(new long[] { wait, wait });
				}
				bounds.get(i)[0] = Math.min(bounds.get(i)[0], wait);
				bounds.get(i)[1] = Math.max(bounds.get(i)[1], wait);
			}
		}
		return bounds.toArray(long[][]::new);
	}

	static String readDoc() {
		try {
			return Files.readString(Path.of("../docs/migrating.md"));
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** A method body that fails with an {@code IllegalStateException} until call number {@code succeedsAt}. */
	static String failing(int succeedsAt) {
		return "if (n < " + succeedsAt + ") throw RowRunner.thrown(new IllegalStateException(\"busy \" + n)); return \"ok \" + n;";
	}

	enum Kind {

		/** Same attempts, outcome (the same instance) and waits. */
		EXACT,

		/** Same attempts and outcome; waits drawn at random, compared by their bounds. */
		RANDOM,

		/** The runs differ, as the docs' row says. */
		DIFFERS

	}

	/**
	 * One row: its test name in the docs, how it compares, whether the recipe must write its
	 * "not exact" comment, and its source files by simple class name (the first is the bean).
	 */
	record Row(String name, Kind kind, boolean noted, Map<String, String> files) {

		String className() {
			return this.files.keySet().iterator().next();
		}

		static String className(String name) {
			return Character.toUpperCase(name.charAt(0)) + name.substring(1);
		}

		/**
		 * A bean with one annotated {@code call()} method running {@code script} (after
		 * {@code int n = CALLS.incrementAndGet();}), or, when {@code script} is null, the members alone.
		 */
		static Row of(String name, Kind kind, boolean noted, String imports, String annotations,
				@org.jspecify.annotations.Nullable String script, String members) {
			String call = (script != null)
					? "public String call() throws Exception { int n = CALLS.incrementAndGet(); " + script + " }" : "";
			String source = """
					package rows;

					import java.util.concurrent.atomic.AtomicInteger;
					%s

					public class %s {

						public static final AtomicInteger CALLS = new AtomicInteger();

						%s
						%s

						%s

					}
					""".formatted(imports, className(name), annotations, call.isEmpty() ? members : call,
					call.isEmpty() ? "" : members);
			return new Row(name, kind, noted, Map.of(className(name), source));
		}

		Row with(String file, String source) {
			Map<String, String> files = new LinkedHashMap<>(this.files);
			files.put(file, source);
			return new Row(this.name, this.kind, this.noted, files);
		}

	}

}
