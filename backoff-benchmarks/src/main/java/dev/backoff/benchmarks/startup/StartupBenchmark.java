package dev.backoff.benchmarks.startup;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;

import dev.backoff.benchmarks.simulation.Statistics;
import dev.backoff.benchmarks.startup.StartupApplication.Measurement;
import dev.backoff.benchmarks.startup.StartupSources.Flavour;

/**
 * Measures what {@code @Backoff} and Spring Framework 7's {@code @Retryable} add to an
 * application's start-up: heap, start-up time and the first call of every method, against the
 * same beans without a retry library. Each run of each {@link StartupVariant} is a fresh child
 * JVM ({@link StartupApplication}) with the class path of this one plus the generated classes
 * ({@link StartupSources}, compiled once per harness run); the variants are interleaved so that
 * a change in the machine's load falls on all of them. Prints Markdown tables: per variant the
 * median and the range, then the medians' differences to {@code plain}, then the ratios.
 *
 * <p>Arguments, all optional: {@code runs} per variant (default 5), {@code beans} (default
 * 1000, {@value StartupSources#METHODS_PER_BEAN} methods each), the directory of the
 * generated classes (default {@code target/startup}), and the variants to run, by id and
 * comma-separated (default all; each one's baseline and Framework variant are added).
 */
public final class StartupBenchmark {

	private static final double MB = 1024 * 1024;

	private static final double MS = 1_000_000;

	private StartupBenchmark() {
	}

	public static void main(String[] args) throws IOException, InterruptedException {
		int runs = (args.length > 0) ? Integer.parseInt(args[0]) : 5;
		int beans = (args.length > 1) ? Integer.parseInt(args[1]) : 1000;
		Path classes = Path.of((args.length > 2) ? args[2] : "target/startup");
		List<StartupVariant> variants = (args.length > 3) ? variants(args[3]) : List.of(StartupVariant.values());
		Map<StartupVariant, List<Measurement>> results = run(runs, beans, classes, variants, System.err);
		System.out.println(table(results, beans));
	}

	/**
	 * @param ids variants' ids, comma-separated
	 * @return those variants with their baselines and Framework variants, in declaration order
	 */
	static List<StartupVariant> variants(String ids) {
		EnumSet<StartupVariant> variants = EnumSet.noneOf(StartupVariant.class);
		for (String id : ids.split(",")) {
			StartupVariant variant = StartupVariant.of(id.trim());
			variants.addAll(List.of(variant, variant.baseline(), variant.framework()));
		}
		return List.copyOf(variants);
	}

	/**
	 * Runs every variant: see {@link #run(int, int, Path, List, PrintStream)}.
	 * @param runs the runs per variant
	 * @param beans the number of beans (and classes)
	 * @param classes where to write the generated classes, one directory per flavour
	 * @param progress where to report progress
	 * @return every variant's measurements, in the order they were made
	 * @throws IOException if a child JVM cannot be started or read
	 * @throws InterruptedException if interrupted while waiting for a child JVM
	 */
	public static Map<StartupVariant, List<Measurement>> run(int runs, int beans, Path classes, PrintStream progress)
			throws IOException, InterruptedException {
		return run(runs, beans, classes, List.of(StartupVariant.values()), progress);
	}

	/**
	 * Compiles the application's classes, then runs the variants {@code runs} times, interleaved.
	 * @param runs the runs per variant
	 * @param beans the number of beans (and classes)
	 * @param classes where to write the generated classes, one directory per flavour
	 * @param variants the variants to run, each with its baseline and Framework variant
	 * @param progress where to report progress
	 * @return every variant's measurements, in the order they were made
	 * @throws IOException if a child JVM cannot be started or read
	 * @throws InterruptedException if interrupted while waiting for a child JVM
	 */
	public static Map<StartupVariant, List<Measurement>> run(int runs, int beans, Path classes,
			List<StartupVariant> variants, PrintStream progress) throws IOException, InterruptedException {
		return run(runs, beans, classes, variants, progress, Children.MEASURE);
	}

	/**
	 * How the child JVMs run.
	 * @param jvmArgs options of each child JVM
	 * @param parallelism how many run at once
	 * @param shared whether one child JVM per run starts every variant, one after another, each
	 * with its flavour's classes from a class loader of its own, rather than one JVM per variant
	 */
	public record Children(List<String> jvmArgs, int parallelism, boolean shared) {

		/** For measurements: one child at a time, one per variant, with the JVM's defaults. */
		public static final Children MEASURE = new Children(List.of(), 1, false);

		/**
		 * For a test of the harness itself, which checks what the children report, not how fast:
		 * every variant in one JVM, with C1 only and the serial collector, as the build runs its
		 * own tests. The second and later variants start in a JVM that has loaded and compiled
		 * Spring already: 2 s of CPU for each fresh JVM saved, which their start-up times must not
		 * be read for.
		 */
		public static final Children CHECK = new Children(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"), 1,
				true);

	}

	/**
	 * As {@link #run(int, int, Path, List, PrintStream)}, with the children run as given.
	 * @param runs the runs per variant
	 * @param beans the number of beans (and classes)
	 * @param classes where to write the generated classes, one directory per flavour
	 * @param variants the variants to run
	 * @param progress where to report progress
	 * @param children how the child JVMs run
	 * @return every variant's measurements, in the variants' order
	 * @throws IOException if a child JVM cannot be started or read
	 * @throws InterruptedException if interrupted while waiting for a child JVM
	 */
	public static Map<StartupVariant, List<Measurement>> run(int runs, int beans, Path classes,
			List<StartupVariant> variants, PrintStream progress, Children children)
			throws IOException, InterruptedException {
		String classPath = System.getProperty("java.class.path");
		long compileStart = System.nanoTime();
		for (Flavour flavour : Flavour.values()) {
			StartupSources.compile(flavour, beans, classPath, classes.resolve(flavour.directoryName()));
		}
		progress.printf(Locale.ROOT, "compiled %d classes x %d flavours into %s in %.1f s%n", beans + 1,
				Flavour.values().length, classes, (System.nanoTime() - compileStart) / 1e9);
		Map<StartupVariant, List<Measurement>> results = new EnumMap<>(StartupVariant.class);
		List<List<StartupVariant>> jvms = children.shared() ? List.of(variants)
				: variants.stream().map(List::of).toList();
		ExecutorService executor = Executors.newFixedThreadPool(children.parallelism());
		try {
			for (int run = 1; run <= runs; run++) {
				List<Future<List<Measurement>>> started = new ArrayList<>();
				for (List<StartupVariant> jvm : jvms) {
					started.add(executor.submit(() -> child(jvm, beans, classPath, classes, children)));
				}
				for (int i = 0; i < jvms.size(); i++) {
					List<Measurement> measurements = measurements(started.get(i));
					for (int v = 0; v < measurements.size(); v++) {
						StartupVariant variant = jvms.get(i).get(v);
						Measurement measurement = measurements.get(v);
						results.computeIfAbsent(variant, (key) -> new ArrayList<>()).add(measurement);
						progress.printf(Locale.ROOT,
								"run %d/%d %-19s start-up %6.0f ms, first calls %5.0f ms, heap %6.1f MB%n", run, runs,
								variant.id(), measurement.startupNanos() / MS, measurement.callsNanos() / MS,
								measurement.heapAfterCalls() / MB);
					}
				}
			}
		}
		finally {
			executor.shutdownNow();
		}
		return results;
	}

	private static List<Measurement> measurements(Future<List<Measurement>> child)
			throws IOException, InterruptedException {
		try {
			return child.get();
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof IOException io) {
				throw io;
			}
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex.getCause());
		}
	}

	/** Starts {@code variants} in one child JVM and reads one measurement of each, in order. */
	private static List<Measurement> child(List<StartupVariant> variants, int beans, String classPath, Path classes,
			Children children) throws IOException, InterruptedException {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		List<String> command = new ArrayList<>();
		command.add(java);
		command.addAll(children.jvmArgs());
		String ids = variants.stream().map(StartupVariant::id).collect(Collectors.joining(","));
		if (children.shared()) {
			// The child loads each variant's generated classes itself.
			command.addAll(List.of("-cp", classPath, StartupApplication.class.getName(), ids,
					Integer.toString(beans), classes.toString()));
		}
		else {
			Path flavourClasses = classes.resolve(variants.get(0).flavour().directoryName());
			command.addAll(List.of("-cp", classPath + File.pathSeparator + flavourClasses,
					StartupApplication.class.getName(), ids, Integer.toString(beans)));
		}
		Process process = new ProcessBuilder(command)
			.redirectError(ProcessBuilder.Redirect.INHERIT)
			.start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		int exit = process.waitFor();
		List<Measurement> measurements = output.lines().map(Measurement::parse).filter(Objects::nonNull).toList();
		if (measurements.size() != variants.size()) {
			throw new IllegalStateException("The child JVM of " + ids + " exited with " + exit + " and printed "
					+ measurements.size() + " measurements; its output:\n" + output);
		}
		return measurements;
	}

	/**
	 * @param results every variant's measurements; {@code plain}'s must be among them
	 * @param beans the number of beans the results are for
	 * @return the Markdown tables
	 */
	public static String table(Map<StartupVariant, List<Measurement>> results, int beans) {
		StringBuilder table = new StringBuilder();
		int runs = results.values().iterator().next().size();
		table.append(String.format(Locale.ROOT, "%d beans x %d methods, runs per variant: %d; median (min-max)%n%n",
				beans, StartupSources.METHODS_PER_BEAN, runs));
		table.append("| variant | heap after start (MB) | heap after first calls (MB) | start-up (ms) "
				+ "| first calls (ms) | total (ms) | proxied beans | methods called | backoff meters | all meters |\n");
		table.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		results.forEach((variant, measurements) -> table.append(String.format(Locale.ROOT,
				"| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", variant.id(),
				summary(measurements, Measurement::heapAfterStart, MB, "%.1f"),
				summary(measurements, Measurement::heapAfterCalls, MB, "%.1f"),
				summary(measurements, Measurement::startupNanos, MS, "%.0f"),
				summary(measurements, Measurement::callsNanos, MS, "%.0f"),
				summary(measurements, Measurement::totalNanos, MS, "%.0f"), distinct(measurements, Measurement::proxies),
				distinct(measurements, Measurement::calls), distinct(measurements, Measurement::meters),
				distinct(measurements, Measurement::allMeters))));
		table.append(String.format(Locale.ROOT,
				"%nAdded to plain with the same application (difference of the medians)%n%n"));
		table.append("| variant | heap after start (MB) | heap after first calls (MB) | start-up (ms) "
				+ "| first calls (ms) | total (ms) |\n");
		table.append("|---|---:|---:|---:|---:|---:|\n");
		results.forEach((variant, measurements) -> {
			if (variant != variant.baseline() && results.containsKey(variant.baseline())) {
				table.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.0f | %.0f | %.0f |%n", variant.id(),
						added(results, variant, Measurement::heapAfterStart) / MB,
						added(results, variant, Measurement::heapAfterCalls) / MB,
						added(results, variant, Measurement::startupNanos) / MS,
						added(results, variant, Measurement::callsNanos) / MS,
						added(results, variant, Measurement::totalNanos) / MS));
			}
		});
		table.append(String.format(Locale.ROOT, "%nRatio to framework of the added figures%n%n"));
		table.append("| variant | heap after start | heap after first calls | first calls | total time |\n");
		table.append("|---|---:|---:|---:|---:|\n");
		for (StartupVariant variant : results.keySet()) {
			StartupVariant framework = variant.framework();
			if (variant.flavour() == Flavour.BACKOFF && results.containsKey(framework)
					&& results.containsKey(variant.baseline())) {
				table.append(String.format(Locale.ROOT, "| %s / %s | %.2f | %.2f | %.2f | %.2f |%n", variant.id(),
						framework.id(), ratio(results, variant, Measurement::heapAfterStart),
						ratio(results, variant, Measurement::heapAfterCalls),
						ratio(results, variant, Measurement::callsNanos), ratio(results, variant, Measurement::totalNanos)));
			}
		}
		return table.toString();
	}

	private static String summary(List<Measurement> measurements, ToDoubleFunction<Measurement> figure, double unit,
			String format) {
		double[] values = values(measurements, figure);
		double min = Double.POSITIVE_INFINITY;
		double max = Double.NEGATIVE_INFINITY;
		for (double value : values) {
			min = Math.min(min, value);
			max = Math.max(max, value);
		}
		return String.format(Locale.ROOT, format + " (" + format + "-" + format + ")", Statistics.median(values) / unit,
				min / unit, max / unit);
	}

	private static String distinct(List<Measurement> measurements, ToIntFunction<Measurement> count) {
		// The same in every run unless something is wrong: then every value shows.
		return measurements.stream()
			.map((measurement) -> Integer.toString(count.applyAsInt(measurement)))
			.distinct()
			.collect(Collectors.joining(", "));
	}

	private static double added(Map<StartupVariant, List<Measurement>> results, StartupVariant variant,
			ToDoubleFunction<Measurement> figure) {
		return Statistics.median(values(results.get(variant), figure))
				- Statistics.median(values(results.get(variant.baseline()), figure));
	}

	private static double ratio(Map<StartupVariant, List<Measurement>> results, StartupVariant variant,
			ToDoubleFunction<Measurement> figure) {
		return added(results, variant, figure) / added(results, variant.framework(), figure);
	}

	private static double[] values(List<Measurement> measurements, ToDoubleFunction<Measurement> figure) {
		return measurements.stream().mapToDouble(figure).toArray();
	}

}
