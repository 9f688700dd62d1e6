package dev.backoff.rewrite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the differential tests share: each row is a small bean, run by a runner compiled beside it,
 * each row in its own {@code AnnotationConfigApplicationContext} ({@link DifferentialRun} runs
 * them all, once). A run is reported as one line,
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

	/** The Spring Retry side: {@code @EnableRetry} with a sleeper that records, which its interceptor takes from the context. */
	static final String SPRING_RETRY_RUNNER = RUNNER.formatted("@org.springframework.retry.annotation.EnableRetry",
			"@Bean public org.springframework.retry.backoff.Sleeper sleeper() { return WAITS::add; }", "");

	private Differential() {
	}

	/**
	 * A row of Spring Retry's table, as {@link Row#of} writes it, importing the annotations of
	 * Spring Retry it uses.
	 */
	static Row springRetryRow(String name, Kind kind, boolean noted, String annotations,
			@org.jspecify.annotations.Nullable String script, String members) {
		String used = annotations + members;
		StringBuilder imports = new StringBuilder();
		for (String type : List.of("Retryable", "Backoff", "Recover", "CircuitBreaker")) {
			if (used.contains("@" + type)) {
				imports.append("import org.springframework.retry.annotation.").append(type).append(";\n");
			}
		}
		return Row.of(name, kind, noted, imports.toString(), annotations, script, members);
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

		/** The same row, with the recipe's "not exact" comment expected. */
		Row withNote() {
			return new Row(this.name, this.kind, true, this.files);
		}

		Row with(String file, String source) {
			Map<String, String> files = new LinkedHashMap<>(this.files);
			files.put(file, source);
			return new Row(this.name, this.kind, this.noted, files);
		}

	}

}
