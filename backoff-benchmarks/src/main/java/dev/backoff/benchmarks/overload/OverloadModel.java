package dev.backoff.benchmarks.overload;

import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import dev.backoff.Admission;
import dev.backoff.BackoffCall;
import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.Jitter;
import dev.backoff.Pacing;
import dev.backoff.RetryBudget;
import dev.backoff.benchmarks.hedging.VirtualScheduler;
import dev.backoff.benchmarks.simulation.Network;
import dev.backoff.benchmarks.simulation.Statistics;
import org.jspecify.annotations.Nullable;

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

		/** With admission per instance (K 2, a 2 min window, at most 0.9 rejected). */
		ADMISSION("+ admission", false, true, false),

		/** With a pace per instance. */
		PACING("+ pacing", false, false, true),

		/** Budget, admission and pace. */
		ALL("all of them", true, true, true),

		/** With AWS's adaptive pace as published before its 2026 fix ({@link AwsAdaptive}). */
		AWS("AWS adaptive (pre-fix)", false, false, false);

		private final String label;

		private final boolean budget;

		private final boolean admission;

		private final boolean pacing;

		Variant(String label, boolean budget, boolean admission, boolean pacing) {
			this.label = label;
			this.budget = budget;
			this.admission = admission;
			this.pacing = pacing;
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
		return new Run(scenario, variant, seed).simulate();
	}

	/** The policy every client calls with: Backoff's defaults, Full Jitter, a 2 s max-elapsed; a 429 is throttling. */
	static BackoffPolicy policy() {
		return BackoffPolicy.builder()
			.maxAttempts(3)
			.baseDelay(Duration.ofMillis(100))
			.jitter(Jitter.FULL)
			.maxElapsed(CALL_TIMEOUT)
			.throttledByDefault((failure) -> failure == Answer.THROTTLED.failure)
			.build();
	}

	/** How the server answers an attempt; the failures are shared and carry no stack trace. */
	enum Answer {

		OK(null), THROTTLED(new Failure("429 Too Many Requests")), DOWN(new Failure("503 Service Unavailable"));

		final @Nullable Failure failure;

		Answer(@Nullable Failure failure) {
			this.failure = failure;
		}

	}

	/** A failed attempt as the client sees it. */
	static final class Failure extends Exception {

		Failure(String message) {
			super(message, null, false, false);
		}

	}

	/** One client instance: its executor (virtual clock, own jitter) and its controls. */
	private static final class Client {

		final BackoffExecutor executor;

		final @Nullable RetryBudget budget;

		final @Nullable Admission admission;

		final @Nullable Pacing pacing;

		final @Nullable AwsAdaptive aws;

		Client(Variant variant, VirtualScheduler scheduler, SplittableRandom random) {
			SplittableRandom jitter = random.split();
			SplittableRandom draws = random.split();
			this.executor = BackoffExecutor.builder()
				.clock(scheduler::nanoTime)
				.randomSource(() -> jitter)
				.sleeper((delay) -> {
					throw new IllegalStateException("The model never sleeps");
				})
				.build();
			this.budget = variant.budget ? RetryBudget.defaults() : null;
			this.admission = variant.admission ? new Admission(Admission.DEFAULT_RATIO, Admission.DEFAULT_WINDOW,
					Admission.DEFAULT_MAX_REJECTION, scheduler::nanoTime, () -> draws) : null;
			this.pacing = variant.pacing ? new Pacing(scheduler::nanoTime) : null;
			this.aws = (variant == Variant.AWS) ? new AwsAdaptive(scheduler::nanoTime) : null;
		}

	}

	/** The state of one run. */
	private static final class Run {

		private final Scenario scenario;

		private final BackoffPolicy policy = policy();

		private final VirtualScheduler scheduler = new VirtualScheduler();

		private final Client[] clients;

		private final SplittableRandom arrivals;

		private final SplittableRandom network;

		private final long endNanos;

		private final int[] offered;

		private final int[] goodput;

		private final int[] throttled;

		private final int[] atServer;

		private double[] latencyMs = new double[1024];

		private int latencies;

		private double tokens;

		private long refilled;

		Run(Scenario scenario, Variant variant, long seed) {
			this.scenario = scenario;
			SplittableRandom root = new SplittableRandom(seed);
			this.arrivals = root.split();
			this.network = root.split();
			this.clients = new Client[scenario.clients()];
			for (int i = 0; i < this.clients.length; i++) {
				this.clients[i] = new Client(variant, this.scheduler, root.split());
			}
			this.endNanos = scenario.seconds() * 1_000_000_000L;
			// A few seconds more for the calls still running at the end.
			int bins = scenario.seconds() + 5;
			this.offered = new int[bins];
			this.goodput = new int[bins];
			this.throttled = new int[bins];
			this.atServer = new int[bins];
			this.tokens = scenario.capacity() * BURST_SECONDS;
		}

		Result simulate() {
			scheduleArrival();
			this.scheduler.run();
			return new Result(this.offered, this.goodput, this.throttled, this.atServer,
					Arrays.copyOf(this.latencyMs, this.latencies));
		}

		private void scheduleArrival() {
			double gapNanos = 1e9 / this.scenario.offered() * this.arrivals.nextExponential();
			long at = this.scheduler.nanoTime() + (long) gapNanos;
			if (at < this.endNanos) {
				this.scheduler.schedule(this::arrive, at - this.scheduler.nanoTime(), TimeUnit.NANOSECONDS);
			}
		}

		private void arrive() {
			Client client = this.clients[this.arrivals.nextInt(this.clients.length)];
			this.offered[second()]++;
			BackoffCall call = client.executor.start(this.policy, client.budget, BackoffListener.NONE, null);
			long start = this.scheduler.nanoTime();
			attempt(client, call, start, (client.aws != null) ? client.aws.delayNanos() : 0);
			scheduleArrival();
		}

		/** An attempt is due: admitted or not, paced, then sent after {@code delay} more. */
		private void attempt(Client client, BackoffCall call, long start, long delay) {
			if (client.admission != null && !client.admission.admit()) {
				call.end(null);
				return;
			}
			long wait = delay;
			if (client.pacing != null) {
				long paced = client.pacing.acquire(start + CALL_TIMEOUT.toNanos() - this.scheduler.nanoTime());
				if (paced < 0) {
					// Its slot comes after the call must have ended: it gives up, unsent.
					call.end(null);
					return;
				}
				wait += paced;
			}
			call.beginAttempt();
			this.scheduler.schedule(() -> reachServer(client, call, start), wait + hop(), TimeUnit.NANOSECONDS);
		}

		private void reachServer(Client client, BackoffCall call, long start) {
			this.atServer[second()]++;
			Answer answer = answer();
			if (answer == Answer.THROTTLED) {
				this.throttled[second()]++;
			}
			long back = hop() + ((answer == Answer.OK) ? (long) (SERVICE_MS * 1e6) : 0);
			this.scheduler.schedule(() -> answered(client, call, start, answer), back, TimeUnit.NANOSECONDS);
		}

		private void answered(Client client, BackoffCall call, long start, Answer answer) {
			if (answer == Answer.OK) {
				if (client.pacing != null) {
					client.pacing.onSuccess();
				}
				if (client.admission != null) {
					client.admission.accepted();
				}
				if (client.aws != null) {
					client.aws.onSuccess();
				}
				call.succeed();
				this.goodput[second()]++;
				if (start >= this.scenario.measureFrom() * 1_000_000_000L) {
					latency((this.scheduler.nanoTime() - start) / 1e6);
				}
				return;
			}
			if (answer == Answer.THROTTLED) {
				if (client.pacing != null) {
					client.pacing.onThrottled();
				}
				if (client.aws != null) {
					client.aws.onThrottled();
				}
			}
			else if (client.pacing != null) {
				client.pacing.onSuccess();
			}
			Duration delay = call.nextDelay(answer.failure);
			if (delay == null) {
				call.end(answer.failure);
				return;
			}
			// AWS adds its pace's delay to the backoff's when the retry is decided; Pacing paces the retry when it is due.
			long wait = delay.toNanos() + ((client.aws != null) ? client.aws.delayNanos() : 0);
			this.scheduler.schedule(() -> attempt(client, call, start, 0), wait, TimeUnit.NANOSECONDS);
		}

		/** The server: down during an outage, else a token bucket of its capacity. */
		private Answer answer() {
			long now = this.scheduler.nanoTime();
			if (this.scenario.downAt(now)) {
				return Answer.DOWN;
			}
			double capacity = this.scenario.capacityAt(second());
			this.tokens = Math.min(capacity * BURST_SECONDS, this.tokens + (now - this.refilled) * capacity / 1e9);
			this.refilled = now;
			if (this.tokens >= 1) {
				this.tokens -= 1;
				return Answer.OK;
			}
			return Answer.THROTTLED;
		}

		private long hop() {
			return (long) (Network.hopMs(this.network) * 1e6);
		}

		private int second() {
			return Math.min((int) (this.scheduler.nanoTime() / 1_000_000_000L), this.offered.length - 1);
		}

		private void latency(double ms) {
			if (this.latencies == this.latencyMs.length) {
				this.latencyMs = Arrays.copyOf(this.latencyMs, this.latencies * 2);
			}
			this.latencyMs[this.latencies++] = ms;
		}

	}

}
