package dev.backoff.benchmarks.hedging;

import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.backoff.BackoffCall;
import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.HedgeEvent;
import dev.backoff.HedgeTokens;
import dev.backoff.Latencies;
import dev.backoff.RetryBudget;
import dev.backoff.spring.operation.RecentLatencies;
import org.jspecify.annotations.Nullable;

/**
 * A discrete-event model of a client calling a {@link HeavyTailService} through Backoff's real
 * non-blocking executor, with and without hedged requests.
 *
 * <p>Calls arrive as a Poisson process; each is one {@code BackoffExecutor.executeAsync} of the
 * variant's policy, whose task sends a request to the service: a {@code CompletableFuture} that
 * the model completes at the request's answer time. The executor's hedge timers, attempt
 * timeouts and retry waits, and the model's arrivals and answers, are all events of one
 * {@link VirtualScheduler}, so the copies sent, the winners and the cancellations are what the
 * library does, in virtual time: nothing sleeps. A call's latency runs from its start to the
 * first successful answer; a call whose every attempt timed out has none (infinite latency).
 *
 * <p>The calls of a run share one {@link HedgeTokens}, as a named policy's do in Spring, with the
 * scenario's {@code hedgeMaxExtraLoad} (0 for none: every hedge that is due is sent).
 *
 * <p>Everything is drawn from generators split from the seed: the arrivals from one, and each
 * call's requests from a generator of its own, so that the {@code n}-th request of a call takes
 * as long in every variant (common random numbers: the variants differ only by their policy).
 */
public final class HedgingModel {

	/** The copies of a call whose answer times a {@link Trace} keeps: the most any variant sends. */
	public static final int TRACED_COPIES = 3;

	private HedgingModel() {
	}

	/**
	 * What is simulated.
	 * @param service the service's answer times
	 * @param calls the calls per run
	 * @param callsPerSecond the calls' arrival rate, on average
	 * @param maxAttempts every variant's max attempts, hedges and retries included
	 * @param drift how many times slower every answer is from the middle call on: 1 for none
	 * @param hedgeMaxExtraLoad the share of a hedge token each call adds, or 0 for no cap on hedges
	 */
	public record Scenario(HeavyTailService service, int calls, double callsPerSecond, int maxAttempts,
			double drift, double hedgeMaxExtraLoad) {

		/**
		 * A scenario with the default cap on hedges.
		 * @param service the service's answer times
		 * @param calls the calls per run
		 * @param callsPerSecond the calls' arrival rate, on average
		 * @param maxAttempts every variant's max attempts, hedges and retries included
		 * @param drift how many times slower every answer is from the middle call on: 1 for none
		 */
		public Scenario(HeavyTailService service, int calls, double callsPerSecond, int maxAttempts, double drift) {
			this(service, calls, callsPerSecond, maxAttempts, drift, HedgeTokens.DEFAULT_MAX_EXTRA_LOAD);
		}

		/**
		 * A scenario whose service does not drift, with the default cap on hedges.
		 * @param service the service's answer times
		 * @param calls the calls per run
		 * @param callsPerSecond the calls' arrival rate, on average
		 * @param maxAttempts every variant's max attempts, hedges and retries included
		 */
		public Scenario(HeavyTailService service, int calls, double callsPerSecond, int maxAttempts) {
			this(service, calls, callsPerSecond, maxAttempts, 1);
		}

		/** @return the default service, 100,000 calls at 1,000 per second, 3 attempts at most */
		public static Scenario defaults() {
			return new Scenario(HeavyTailService.defaults(), 100_000, 1_000, 3);
		}

		/**
		 * @param calls the calls per run
		 * @return this scenario with fewer or more calls
		 */
		public Scenario withCalls(int calls) {
			return new Scenario(this.service, calls, this.callsPerSecond, this.maxAttempts, this.drift,
					this.hedgeMaxExtraLoad);
		}

		/**
		 * @param hedgeMaxExtraLoad the share of a hedge token each call adds, or 0 for no cap
		 * @return this scenario with another cap on hedges
		 */
		public Scenario withHedgeMaxExtraLoad(double hedgeMaxExtraLoad) {
			return new Scenario(this.service, this.calls, this.callsPerSecond, this.maxAttempts, this.drift,
					hedgeMaxExtraLoad);
		}

		/**
		 * @param drift how many times slower every answer is from the middle call on
		 * @return this scenario with a service that slows down halfway
		 */
		public Scenario withDrift(double drift) {
			return new Scenario(this.service, this.calls, this.callsPerSecond, this.maxAttempts, drift,
					this.hedgeMaxExtraLoad);
		}

		/**
		 * @param percentile the percentile, say 95
		 * @return the service's answer time at that percentile, in whole milliseconds
		 */
		public Duration delayAt(double percentile) {
			return Duration.ofMillis(Math.round(this.service.quantileMs(percentile / 100)));
		}

	}

	/**
	 * The figures of one run.
	 * @param calls the calls made
	 * @param requests the requests the service received: every copy and every attempt
	 * @param failed the calls that got no answer (every attempt timed out)
	 * @param hedgesSent the hedges sent, as the executor reported them to its listener
	 * @param hedgesWon the hedges whose answer was the call's
	 * @param hedgesHeldBack the hedges due but not sent: the hedge tokens were spent
	 * @param retries the retries, after an attempt timed out
	 * @param p50Ms the median latency of the calls, in milliseconds
	 * @param p99Ms their 99th percentile
	 * @param p999Ms their 99.9th percentile
	 * @param curveMs the latency at each of {@link #CURVE_NINES}' percentiles
	 */
	public record Result(long calls, long requests, long failed, long hedgesSent, long hedgesWon, long hedgesHeldBack,
			long retries, double p50Ms, double p99Ms, double p999Ms, double[] curveMs) {

		/** The percentiles of the chart's curves, as nines: {@code -log10(1 - q)}, from p50 to p99.99. */
		public static final double[] CURVE_NINES = curveNines();

		private static double[] curveNines() {
			double[] nines = new double[38];
			nines[0] = Math.log10(2);
			for (int i = 1; i < nines.length; i++) {
				nines[i] = 0.3 + 0.1 * i;
			}
			return nines;
		}

		/** @return the requests beyond one per call, as a share of the calls */
		public double extraRequests() {
			return (double) this.requests / this.calls - 1;
		}

	}

	/**
	 * One run's figures and, for the tests, every call's latency and its requests' answer times.
	 * @param result the run's figures
	 * @param latencyMs each call's latency in milliseconds, in arrival order; infinite if none
	 * @param copyMs the answer times of each call's first {@link #TRACED_COPIES} requests, in
	 * the order drawn: those of call {@code i} at {@code i * TRACED_COPIES}; NaN for one not sent
	 */
	public record Trace(Result result, double[] latencyMs, double[] copyMs) {
	}

	/**
	 * Runs the scenario once without a retry budget.
	 * @param scenario what is simulated
	 * @param variant the client's policy
	 * @param seed seeds the arrivals and the answer times
	 * @return the run's figures
	 */
	public static Result run(Scenario scenario, Variant variant, long seed) {
		return trace(scenario, variant, seed, null).result();
	}

	/**
	 * Runs the scenario once and keeps every call.
	 * @param scenario what is simulated
	 * @param variant the client's policy
	 * @param seed seeds the arrivals and the answer times
	 * @param budget the retry budget that every call shares, or {@code null} for none
	 * @return the run's figures and calls
	 */
	public static Trace trace(Scenario scenario, Variant variant, long seed, @Nullable RetryBudget budget) {
		return new Run(scenario, variant.policy(scenario), seed, budget).simulate();
	}

	/**
	 * Runs the scenario once under any policy, without a budget, and keeps every call. A policy
	 * with a {@code hedgePercentile} learns its delay from the answers, in Spring's
	 * {@link RecentLatencies} on the virtual clock.
	 * @param scenario what is simulated
	 * @param policy the client's policy
	 * @param seed seeds the arrivals and the answer times
	 * @return the run's figures and calls
	 */
	public static Trace trace(Scenario scenario, BackoffPolicy policy, long seed) {
		return new Run(scenario, policy, seed, null).simulate();
	}

	/** The state of one run. */
	private static final class Run implements BackoffListener {

		private final Scenario scenario;

		private final BackoffPolicy policy;

		private final @Nullable RetryBudget budget;

		private final VirtualScheduler scheduler = new VirtualScheduler();

		private final BackoffExecutor executor;

		private final @Nullable Latencies latencies;

		private final @Nullable HedgeTokens hedgeTokens;

		private final SplittableRandom arrivals;

		private final SplittableRandom callSeeds;

		private final double[] latencyMs;

		private final double[] copyMs;

		private int arrived;

		private long requests;

		private long failed;

		private long hedgesSent;

		private long hedgesWon;

		private long hedgesHeldBack;

		private long retries;

		Run(Scenario scenario, BackoffPolicy policy, long seed, @Nullable RetryBudget budget) {
			this.scenario = scenario;
			this.policy = policy;
			this.budget = budget;
			SplittableRandom root = new SplittableRandom(seed);
			this.arrivals = root.split();
			this.callSeeds = root.split();
			SplittableRandom jitter = root.split();
			this.executor = BackoffExecutor.builder()
				.clock(this.scheduler::nanoTime)
				.randomSource(() -> jitter)
				.sleeper((delay) -> {
					throw new IllegalStateException("The non-blocking executor must never sleep");
				})
				.build();
			double percentile = policy.getHedging().getPercentile();
			this.latencies = (percentile > 0) ? new RecentLatencies(percentile, this.scheduler::nanoTime) : null;
			this.hedgeTokens = (scenario.hedgeMaxExtraLoad() > 0) ? new HedgeTokens(scenario.hedgeMaxExtraLoad()) : null;
			this.latencyMs = new double[scenario.calls()];
			this.copyMs = new double[scenario.calls() * TRACED_COPIES];
			Arrays.fill(this.copyMs, Double.NaN);
		}

		Trace simulate() {
			scheduleArrival();
			this.scheduler.run();
			double[] sorted = this.latencyMs.clone();
			Arrays.sort(sorted);
			double[] curve = Arrays.stream(Result.CURVE_NINES).map((nines) -> quantile(sorted, 1 - Math.pow(10, -nines)))
				.toArray();
			Result result = new Result(this.arrived, this.requests, this.failed, this.hedgesSent, this.hedgesWon,
					this.hedgesHeldBack, this.retries, quantile(sorted, 0.5), quantile(sorted, 0.99), quantile(sorted, 0.999), curve);
			return new Trace(result, this.latencyMs, this.copyMs);
		}

		private void scheduleArrival() {
			if (this.arrived == this.scenario.calls()) {
				return;
			}
			double gapMs = 1000 / this.scenario.callsPerSecond() * this.arrivals.nextExponential();
			this.scheduler.schedule(this::call, nanos(gapMs), TimeUnit.NANOSECONDS);
		}

		/** A call arrives: the real executor runs it; the next arrival is scheduled. */
		private void call() {
			int index = this.arrived++;
			SplittableRandom random = new SplittableRandom(this.callSeeds.nextLong());
			int[] sent = new int[1];
			long start = this.scheduler.nanoTime();
			double drift = (index >= this.scenario.calls() / 2) ? this.scenario.drift() : 1;
			BackoffCall backoffCall = this.executor.start(this.policy, this.budget, this, null);
			this.executor.executeAsync(backoffCall, this.latencies, this.hedgeTokens, () -> {
				double answerMs = this.scenario.service().draw(random) * drift;
				if (sent[0] < TRACED_COPIES) {
					this.copyMs[index * TRACED_COPIES + sent[0]] = answerMs;
				}
				sent[0]++;
				this.requests++;
				CompletableFuture<Integer> answer = new CompletableFuture<>();
				// A cancelled copy (the loser of a hedge) or a timed-out one ignores its answer.
				this.scheduler.schedule(() -> answer.complete(index), nanos(answerMs), TimeUnit.NANOSECONDS);
				return answer;
			}, this.scheduler).whenComplete((result, failure) -> {
				if (failure != null) {
					this.failed++;
					this.latencyMs[index] = Double.POSITIVE_INFINITY;
				}
				else {
					this.latencyMs[index] = (this.scheduler.nanoTime() - start) / 1e6;
				}
			});
			scheduleArrival();
		}

		@Override
		public void onHedge(HedgeEvent event, int attempt) {
			if (event == HedgeEvent.SENT) {
				this.hedgesSent++;
			}
			else if (event == HedgeEvent.WON) {
				this.hedgesWon++;
			}
			else if (event == HedgeEvent.HELD_BACK) {
				this.hedgesHeldBack++;
			}
		}

		@Override
		public void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
			this.retries++;
		}

		private static long nanos(double ms) {
			return Math.round(ms * 1e6);
		}

		/** As {@code Statistics.quantile}, on values already sorted; infinite when a closest rank is. */
		private static double quantile(double[] sorted, double q) {
			double rank = q * (sorted.length - 1);
			int below = (int) Math.floor(rank);
			int above = Math.min(below + 1, sorted.length - 1);
			if (Double.isInfinite(sorted[above])) {
				return (rank == below) ? sorted[below] : Double.POSITIVE_INFINITY;
			}
			return sorted[below] + (rank - below) * (sorted[above] - sorted[below]);
		}

	}

}
