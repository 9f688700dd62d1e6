package dev.backoff.benchmarks.overload;

import java.time.Duration;

import dev.backoff.Admission;
import dev.backoff.BackoffPolicy;
import dev.backoff.Jitter;
import dev.backoff.benchmarks.simulation.Statistics;

/**
 * A discrete-event model of client instances calling one server that allows a fixed rate and
 * answers 429 above it, through Backoff's real classes: each call is a {@link BackoffCall} of
 * the instance's {@link BackoffExecutor} (its waits drawn from the policy's Full Jitter, its
 * retries decided by the policy and the instance's {@link RetryBudget}), and each attempt may
 * first be rejected locally by the instance's {@link Admission} and wait for its slot from
 * the instance's {@link Pacing}, all on the virtual clock of one {@link VirtualScheduler}.
 *
 * <p>Calls arrive as a Poisson process, each at an instance drawn at random; an attempt
 * crosses the {@link Network} both ways, and the server takes {@value #SERVICE_MS} ms over
 * one it accepts. The server is a token bucket of its capacity per second holding at most
 * {@value #BURST_SECONDS} s of it; during an outage it answers every attempt 503 (not
 * throttling); a call gives up after {@link #CALL_TIMEOUT} (the policy's max-elapsed, and the
 * longest a paced attempt waits for its slot).
 */
public final class OverloadModel {

	/** The server's time over an attempt it accepts, in milliseconds. */
	static final double SERVICE_MS = 10;

	/** The server's bucket holds this many seconds of its capacity: its burst. */
	static final double BURST_SECONDS = 0.1;

	/** How long a call may take, waits included: the policy's max-elapsed. */
	static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);

	private OverloadModel() {
	}

	/** What the server does during a scenario. */
	public enum Kind {

		/** Its capacity all along. */
		STEADY,

		/** Down (every attempt answered 503) for {@code eventSeconds} from {@code eventAt}. */
		OUTAGE,

		/** Half its capacity from {@code eventAt} on. */
		HALVING

	}

	/**
	 * What is simulated.
	 * @param name the scenario's name in the report and its chart's file
	 * @param title a sentence for the report
	 * @param kind what the server does
	 * @param clients the client instances, each with its own budget, admission and pace
	 * @param capacity the attempts per second the server accepts (before a halving)
	 * @param offered the calls per second, all instances together
	 * @param seconds how long calls arrive
	 * @param eventAt when the outage or the halving starts, in seconds
	 * @param eventSeconds how long the outage lasts
	 */
	public record Scenario(String name, String title, Kind kind, int clients, double capacity, double offered,
			int seconds, int eventAt, int eventSeconds) {

		/** @return the capacity at a second of the run */
		public double capacityAt(int second) {
			return (this.kind == Kind.HALVING && second >= this.eventAt) ? this.capacity / 2 : this.capacity;
		}

		/** @return whether the server is down at a time, in nanoseconds */
		boolean downAt(long nanos) {
			return this.kind == Kind.OUTAGE && nanos >= this.eventAt * 1_000_000_000L
					&& nanos < (this.eventAt + this.eventSeconds) * 1_000_000_000L;
		}

		/** @return the second from which the time to recover counts: the outage's end, the halving, or the start */
		public int recoverFrom() {
			return switch (this.kind) {
				case STEADY -> 0;
				case OUTAGE -> this.eventAt + this.eventSeconds;
				case HALVING -> this.eventAt;
			};
		}

		/** @return the first second of the table's figures: the second half of a steady run ("once paced"), else all */
		public int measureFrom() {
			return (this.kind == Kind.STEADY) ? this.seconds / 2 : 0;
		}

	}

	/** The client's controls: plain backoff, each control added alone, all of them, and AWS's pace as published. */
	public enum Variant {

		/** Exponential backoff with Full Jitter (3 attempts, from 100 ms), nothing else. */
		PLAIN("backoff + Full Jitter", false, false, false),

		/** With a retry budget per instance (10 tokens, 0.1 a success). */
		BUDGET("+ budget", true, false, false),

		/** With admission per instance (K 2, a 2 min window and the last second, at most 0.9 rejected). */
		ADMISSION("+ admission", false, true, false),

		/** With a pace per instance. */
		PACING("+ pacing", false, false, true),

		/** Budget, admission and pace. */
		ALL("all of them", true, true, true),

		/** With AWS's adaptive pace as published before its 2026 fix ({@link AwsAdaptive}). */
		AWS("AWS adaptive (pre-fix)", false, false, false),

		/**
		 * All of them with admission's K at 1.25 (throttling once more than a fifth of the attempts
		 * fail): what a lower {@code admission.ratio} buys in the outage, run in that scenario only.
		 */
		ALL_RATIO_1_25("all of them, admission.ratio 1.25", true, true, true, 1.25);

		private final String label;

		final boolean budget;

		final boolean admission;

		final boolean pacing;

		/** Admission's K. */
		final double ratio;

		Variant(String label, boolean budget, boolean admission, boolean pacing) {
			this(label, budget, admission, pacing, Admission.DEFAULT_RATIO);
		}

		Variant(String label, boolean budget, boolean admission, boolean pacing, double ratio) {
			this.label = label;
			this.budget = budget;
			this.admission = admission;
			this.pacing = pacing;
			this.ratio = ratio;
		}

		/** @return the variant's name in the report */
		public String label() {
			return this.label;
		}

	}

	/**
	 * One run's figures, per second of the run.
	 * @param offered the calls that arrived
	 * @param goodput the calls that succeeded, at the second of their success
	 * @param throttled the attempts the server answered 429
	 * @param atServer the attempts that reached the server
	 * @param latencyMs the latencies of the successful calls that arrived from
	 * {@link Scenario#measureFrom()}, in arrival order
	 */
	public record Result(int[] offered, int[] goodput, int[] throttled, int[] atServer, double[] latencyMs) {

		/** @return the median latency of the successful calls measured, in milliseconds */
		public double p50Ms() {
			return Statistics.quantile(this.latencyMs, 0.5);
		}

		/** @return their 99th percentile */
		public double p99Ms() {
			return Statistics.quantile(this.latencyMs, 0.99);
		}

		/** @return the mean per second of a series over {@code [from, to)} */
		static double perSecond(int[] series, int from, int to) {
			long sum = 0;
			for (int second = from; second < to; second++) {
				sum += series[second];
			}
			return (double) sum / (to - from);
		}

		/** @return the calls that succeeded per second over the scenario's measured seconds */
		public double goodputPerSecond(Scenario scenario) {
			return perSecond(this.goodput, scenario.measureFrom(), scenario.seconds());
		}

		/** @return the standard deviation of the goodput per second over the measured seconds: how steady it is */
		public double goodputSpread(Scenario scenario) {
			double mean = goodputPerSecond(scenario);
			double sum = 0;
			for (int second = scenario.measureFrom(); second < scenario.seconds(); second++) {
				double d = this.goodput[second] - mean;
				sum += d * d;
			}
			return Math.sqrt(sum / (scenario.seconds() - scenario.measureFrom()));
		}

		/** @return the 429s per second over the scenario's measured seconds */
		public double throttledPerSecond(Scenario scenario) {
			return perSecond(this.throttled, scenario.measureFrom(), scenario.seconds());
		}

		/** @return the attempts reaching the server per second over the scenario's measured seconds */
		public double atServerPerSecond(Scenario scenario) {
			return perSecond(this.atServer, scenario.measureFrom(), scenario.seconds());
		}

		/** @return the attempts that reached the server during the outage, as a share of the calls offered meanwhile */
		public double outageLoad(Scenario scenario) {
			int from = scenario.eventAt();
			int to = from + scenario.eventSeconds();
			return perSecond(this.atServer, from, to) / perSecond(this.offered, from, to);
		}

		/**
		 * @return the seconds from {@link Scenario#recoverFrom()} to the first second from which,
		 * for {@value #STABLE_SECONDS} s, the goodput is at least 90 % of what the server can
		 * serve (its capacity or the calls offered, the less) and the 429s at most 20 % of the
		 * capacity; NaN if never
		 */
		public double recoverSeconds(Scenario scenario) {
			for (int start = scenario.recoverFrom(); start + STABLE_SECONDS <= scenario.seconds(); start++) {
				boolean stable = true;
				for (int second = start; second < start + STABLE_SECONDS && stable; second++) {
					double capacity = scenario.capacityAt(second);
					double servable = Math.min(capacity, this.offered[second]);
					stable = this.goodput[second] >= 0.9 * servable && this.throttled[second] <= 0.2 * capacity;
				}
				if (stable) {
					return start - scenario.recoverFrom();
				}
			}
			return Double.NaN;
		}

		/** The seconds that count as recovered: long enough not to be one lucky second. */
		static final int STABLE_SECONDS = 10;

	}

	/**
	 * Runs a scenario once.
	 * @param scenario what is simulated
	 * @param variant the clients' controls
	 * @param seed seeds the arrivals, the network and the clients' jitter and draws
	 * @return the run's figures
	 */
	public static Result run(Scenario scenario, Variant variant, long seed) {
		return new OverloadRun(scenario, variant, seed).simulate();
	}

	/** The policy every client calls with: Backoff's defaults, Full Jitter, a 2 s max-elapsed; a 429 is throttling. */
	static BackoffPolicy policy() {
		return BackoffPolicy.builder()
			.maxAttempts(3)
			.baseDelay(Duration.ofMillis(100))
			.jitter(Jitter.FULL)
			.maxElapsed(CALL_TIMEOUT)
			.throttledByDefault((failure) -> failure == OverloadRun.Answer.THROTTLED.failure)
			.build();
	}


}
