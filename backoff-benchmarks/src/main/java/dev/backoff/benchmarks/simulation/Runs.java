package dev.backoff.benchmarks.simulation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.ToDoubleFunction;
import java.util.stream.IntStream;

/** What every seeded simulation does with its runs: make them, summarise them, write them out. */
public final class Runs {

	private Runs() {
	}

	/**
	 * @param variants the variants to run, in order
	 * @param runs the runs of each; run {@code n} uses seed {@code n}, so every variant meets the same events
	 * @param run one run of a variant with a seed
	 * @return each variant's runs, in seed order
	 */
	public static <V extends Enum<V>, R> Map<V, List<R>> simulate(Class<V> type, List<V> variants, int runs,
			BiFunction<V, Integer, R> run) {
		Map<V, List<R>> results = new EnumMap<>(type);
		for (V variant : variants) {
			results.put(variant, IntStream.range(0, runs).parallel().mapToObj((seed) -> run.apply(variant, seed)).toList());
		}
		return results;
	}

	/** The median over the runs, leaving out NaN (what a run never reached). */
	public static <R> double median(List<R> runs, ToDoubleFunction<R> value) {
		return Statistics.median(runs.stream().mapToDouble(value).filter((v) -> !Double.isNaN(v)).toArray());
	}

	/** Writes a file of the docs, making its folder if needed. */
	public static void write(Path path, String content) throws IOException {
		Files.createDirectories(path.toAbsolutePath().getParent());
		Files.writeString(path, content, StandardCharsets.UTF_8);
	}

}
