package dev.backoff.sample.hedging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Issue 41, measured over real HTTP: the sample's downstream with a latency tail (a share of
 * answers delayed), called with no hedging, with hedging (maxHedges 1 and 2) and retry-only (an
 * attempt timeout at the hedge delay, then a retry), each call a JDK {@code HttpClient.sendAsync}
 * under {@code BackoffExecutor.executeAsync}. Prints p50/p99/p99.9 and the extra requests the
 * downstream received per variant and run, then the runs' medians and ranges.
 *
 * <p>The hedge delay is, unless given, the p99 of the fast answers, measured first at the same
 * rate with no tail (rounded up to a millisecond). Each variant's run starts from a reset
 * downstream, whose re-seeded dice delay the same sequence of requests; each run takes the
 * variants in a rotated order.
 *
 * <p>Arguments, all optional: calls per variant and run (20000), calls started per second
 * (1000), the most calls in flight (200), runs (3), slow share (0.01), slow delay in ms (1000),
 * hedge delay in ms (measured).
 */
public final class HttpTailBenchmark {

	private static final long SEED = 41;

	private HttpTailBenchmark() {
	}

	public static void main(String[] args) throws Exception {
		int calls = (args.length > 0) ? Integer.parseInt(args[0]) : 20_000;
		double rate = (args.length > 1) ? Double.parseDouble(args[1]) : 1000;
		int maxInFlight = (args.length > 2) ? Integer.parseInt(args[2]) : 200;
		int runs = (args.length > 3) ? Integer.parseInt(args[3]) : 3;
		double slowRate = (args.length > 4) ? Double.parseDouble(args[4]) : 0.01;
		Duration slowDelay = Duration.ofMillis((args.length > 5) ? Long.parseLong(args[5]) : 1000);
		try (HttpTailSample sample = HttpTailSample.start(SEED); HttpTailHarness harness = new HttpTailHarness()) {
			// Warm-up and calibration: the fast answers alone, at the same rate.
			// (Twice: after one, the first run of the first trials still had a p50 of 280 ms.)
			for (int i = 0; i < 2; i++) {
				harness.run(sample, HttpTailVariant.none(), calls / 2, rate, maxInFlight, 0, Duration.ZERO);
			}
			HttpTailResult fast = harness.run(sample, HttpTailVariant.none(), calls / 2, rate, maxInFlight, 0,
					Duration.ZERO);
			Duration delay = (args.length > 6) ? Duration.ofMillis(Long.parseLong(args[6]))
					: Duration.ofMillis((long) Math.ceil(fast.millis(0.99)));
			System.out.printf(Locale.ROOT,
					"Fast answers (no tail, %d calls, %.0f/s): p50 %.1f ms, p95 %.1f ms, p99 %.1f ms%n", fast.calls(),
					rate, fast.millis(0.5), fast.millis(0.95), fast.millis(0.99));
			System.out.printf(Locale.ROOT,
					"Tail: %.2f %% of answers delayed %d ms; hedge delay and attempt timeout: %d ms; %d calls per variant "
							+ "and run, %.0f/s, at most %d in flight%n%n",
					100 * slowRate, slowDelay.toMillis(), delay.toMillis(), calls, rate, maxInFlight);
			Map<String, List<HttpTailResult>> byVariant = new LinkedHashMap<>();
			System.out.println("| run " + HttpTailResult.HEADER.replace("\n|", "\n|---|"));
			List<HttpTailVariant> variants = HttpTailVariant.all(delay);
			variants.forEach((variant) -> byVariant.put(variant.name(), new ArrayList<>()));
			for (int run = 1; run <= runs; run++) {
				// Each run starts one variant later: none always runs first, on the coldest JIT or
				// the quietest neighbours.
				for (int i = 0; i < variants.size(); i++) {
					HttpTailVariant variant = variants.get((run - 1 + i) % variants.size());
					HttpTailResult result = harness.run(sample, variant, calls, rate, maxInFlight, slowRate,
							slowDelay);
					byVariant.get(variant.name()).add(result);
					System.out.println("| " + run + " " + result.row());
					if (result.elapsed().toNanos() > 1.1e9 * calls / rate + slowDelay.toNanos()) {
						System.out.printf(Locale.ROOT, "(this run fell behind its rate: %.1f s for %d calls)%n",
								result.elapsed().toNanos() / 1e9, calls);
					}
				}
			}
			System.out.println();
			System.out.println("Medians over " + runs + " runs (range in brackets):");
			System.out.println();
			System.out.println("| variant | p50 ms | p99 ms | p99.9 ms | extra requests | failed calls |");
			System.out.println("|---|---:|---:|---:|---:|---:|");
			byVariant.forEach((name, results) -> System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s |%n",
					name, summary(results, (r) -> r.millis(0.5), "%.1f"), summary(results, (r) -> r.millis(0.99), "%.1f"),
					summary(results, (r) -> r.millis(0.999), "%.0f"),
					summary(results, (r) -> 100 * r.extraRequests(), "%.2f %%"),
					summary(results, HttpTailResult::failedCalls, "%.0f")));
		}
	}

	private static String summary(List<HttpTailResult> results, ToDoubleFunction<HttpTailResult> value, String format) {
		double[] values = results.stream().mapToDouble(value).sorted().toArray();
		double median = (values.length % 2 == 1) ? values[values.length / 2]
				: (values[values.length / 2 - 1] + values[values.length / 2]) / 2;
		String text = String.format(Locale.ROOT, format, median);
		if (values.length == 1 || values[0] == values[values.length - 1]) {
			return text;
		}
		return text + " (" + String.format(Locale.ROOT, format, values[0]) + "–"
				+ String.format(Locale.ROOT, format, values[values.length - 1]) + ")";
	}

}
