package dev.backoff.benchmarks.amplification;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

import dev.backoff.BackoffCall;
import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.Jitter;
import dev.backoff.Outcome;
import dev.backoff.RetryBudget;
import dev.backoff.benchmarks.simulation.Network;
import dev.backoff.benchmarks.simulation.Statistics;
import org.jspecify.annotations.Nullable;

/**
 * A discrete-event model of retry amplification: clients call a dependency that fails every
 * attempt during an outage (or throttles what exceeds its rate limit during a throttling
 * episode) and then recovers, each logical request being one call under a
 * {@link BackoffPolicy} with or without a shared {@link RetryBudget}, and with or without a
 * throttling schedule.
 *
 * <p>Each client issues requests back to back, thinking an exponentially distributed time
 * between the end of one and the start of the next (the first starts after one think time,
 * so that the clients do not start together). An attempt reaches the dependency one
 * |Normal(10 ms, 2 ms)| hop after it is sent, fails there with the failure rate of that
 * moment (the outage's before recovery, the residual one after), and the client learns the
 * result one hop later. In a throttling episode the dependency admits at most
 * {@link Scenario#throttleLimitPerSecond()} attempts per second before recovery (a token bucket
 * holding 10 ms of them) and answers the rest {@code 429 Too Many Requests}; those it admits
 * fail with the outage failure rate. No new request starts after the end of the simulated time; those in
 * flight finish.
 *
 * <p>The calls are the library's own: every request is a {@link BackoffCall} from a
 * {@link BackoffExecutor} stepped by hand on a simulated clock, so the figures are those of
 * the real retry and budget decisions, not of a re-implementation. Events are processed in
 * simulated time order; everything is drawn from generators split from the seed, so a seed
 * always gives the same result.
 */
public final class AmplificationModel {

	/** Attempts per call, the first included: one call and two retries. */
	public static final int MAX_ATTEMPTS = BackoffPolicy.DEFAULT_MAX_ATTEMPTS;

	/** The first retry's ceiling. */
	public static final Duration BASE_DELAY = BackoffPolicy.DEFAULT_BASE_DELAY;

	/** The cap of every delay; with 3 attempts the ceilings are 100 and 200 ms. */
	public static final Duration MAX_DELAY = BackoffPolicy.DEFAULT_MAX_DELAY;

	/** The throttling schedule's first ceiling, AWS's base for throttling errors. */
	public static final Duration THROTTLE_BASE_DELAY = Duration.ofSeconds(1);

	/** The budget's size: retries stop when half of it is spent. */
	public static final double MAX_TOKENS = RetryBudget.DEFAULT_MAX_TOKENS;

	/** The tokens a successful call gives back. */
	public static final double TOKEN_RATIO = RetryBudget.DEFAULT_TOKEN_RATIO;

	private static final int SEND = 0;

	private static final int ARRIVE = 1;

	private static final int RESULT = 2;

	private AmplificationModel() {
	}

	/** Whether the clients' policy has a retry budget, and whether it classifies 429 as throttling. */
	public enum Variant {

		/** No budget: every failure is retried up to {@link #MAX_ATTEMPTS}. */
		WITHOUT_BUDGET("without budget", false, false),

		/**
		 * One {@code RetryBudget.of(MAX_TOKENS, TOKEN_RATIO)} shared by all the clients; a 429 is
		 * a failure like any other (a whole token, the normal schedule).
		 */
		WITH_BUDGET("with budget", true, false),

		/**
		 * No budget; a 429 is throttling: its retry waits by the throttling schedule
		 * ({@link #THROTTLE_BASE_DELAY}, capped at {@link #MAX_DELAY}).
		 */
		THROTTLING_SCHEDULE("throttling schedule", false, true),

		/**
		 * The budget and the throttling schedule: a 429's retry waits by the throttling schedule
		 * and takes the budget's default throttle cost, 0.357 of a token.
		 */
		THROTTLING_SCHEDULE_WITH_BUDGET("throttling schedule and budget", true, true);

		private final String label;

		private final boolean budget;

		private final boolean throttling;

		Variant(String label, boolean budget, boolean throttling) {
			this.label = label;
			this.budget = budget;
			this.throttling = throttling;
		}

		/** @return the name in the CSV and the chart, e.g. {@code with budget} */
		public String label() {
			return this.label;
		}

		/** @return whether the clients share a retry budget */
		public boolean hasBudget() {
			return this.budget;
		}

	}

	/**
	 * What is simulated.
	 * @param clients the clients, each with one request at a time
	 * @param durationMs the simulated time during which requests start
	 * @param recoveryMs when the outage ends
	 * @param outageFailureRate the share of attempts that fail before recovery (1: all)
	 * @param residualFailureRate the share of attempts that fail after recovery
	 * @param thinkMeanMs the mean think time between a client's requests
	 * @param bucketMs the width of one step of the time series
	 * @param throttleLimitPerSecond the attempts per second the dependency admits before
	 * recovery, answering the rest 429; 0 for no limit (an outage rather than a throttling
	 * episode)
	 */
	public record Scenario(int clients, double durationMs, double recoveryMs, double outageFailureRate,
			double residualFailureRate, double thinkMeanMs, double bucketMs, double throttleLimitPerSecond) {

		/**
		 * @return 100 clients for 30 s, every attempt failing for the first 10 s and 5 % after,
		 * think times of 100 ms on average, a time series in steps of 10 ms
		 */
		public static Scenario defaults() {
			return new Scenario(100, 30_000, 10_000, 1.0, 0.05, 100, 10, 0);
		}

		/**
		 * @return the {@link #defaults()} but for the first 10 s: a throttling episode in which
		 * the dependency admits 400 attempts per second, about half what the clients ask of it
		 * when nothing fails, and fails 5 % of those as after recovery
		 */
		public static Scenario throttlingEpisode() {
			return defaults().withOutageFailureRate(0.05).withThrottleLimit(400);
		}

		/**
		 * @param rate the share of attempts that fail before recovery
		 * @return this scenario with another outage failure rate
		 */
		public Scenario withOutageFailureRate(double rate) {
			return new Scenario(this.clients, this.durationMs, this.recoveryMs, rate, this.residualFailureRate,
					this.thinkMeanMs, this.bucketMs, this.throttleLimitPerSecond);
		}

		/**
		 * @param perSecond the attempts per second the dependency admits before recovery
		 * @return this scenario with another rate limit
		 */
		public Scenario withThrottleLimit(double perSecond) {
			return new Scenario(this.clients, this.durationMs, this.recoveryMs, this.outageFailureRate,
					this.residualFailureRate, this.thinkMeanMs, this.bucketMs, perSecond);
		}

		/** @return the steps of the time series */
		public int buckets() {
			return (int) Math.ceil(this.durationMs / this.bucketMs);
		}

	}

	/**
	 * One step of the time series.
	 * @param requests the first attempts that reached the dependency in this step
	 * @param attempts all the attempts that reached the dependency in this step
	 * @param tokens the budget's tokens at the end of this step (NaN without a budget)
	 */
	public record Bucket(long requests, long attempts, double tokens) {

		/** @return the attempts per logical request of this step: the load the retries multiply */
		public double attemptsPerRequest() {
			return (double) this.attempts / this.requests;
		}

	}

	/**
	 * The outcome of one run. A request belongs to the outage when every one of its attempts
	 * reached the dependency before recovery, to the recovery when its first attempt reached it
	 * after; the few that straddle the moment of recovery count only in the totals.
	 * @param requests the logical requests, each one call
	 * @param attempts their attempts: the calls the dependency received
	 * @param outageRequests the requests of the outage
	 * @param outageAttempts their attempts
	 * @param recoveredRequests the requests after recovery
	 * @param recoveredAttempts their attempts
	 * @param budgetReopensMs how long after recovery the budget allowed retries again (its tokens
	 * more than half its size); NaN without a budget, or if it never did
	 * @param firstRetryMs how long after recovery the first retry of a failure that happened after
	 * recovery was scheduled; NaN if none was
	 * @param retriesAfterRecovery the retries of failures that happened after recovery
	 * @param deniedAfterRecovery the calls that the budget ended ({@code budget_exhausted}) after
	 * a failure that happened after recovery
	 * @param finalTokens the budget's tokens at the end (NaN without a budget)
	 * @param outageSucceeded the requests of the outage that succeeded
	 * @param outageThrottledShare the share of the attempts that reached the dependency before
	 * recovery that it answered 429
	 * @param outageLatencyMeanMs the mean time from a request's first attempt being sent to the
	 * client learning its outcome, over the requests of the outage
	 * @param outageLatencyP99Ms the 99th percentile of that time
	 * @param series the time series, one step per {@link Scenario#bucketMs()}
	 */
	public record Result(long requests, long attempts, long outageRequests, long outageAttempts,
			long recoveredRequests, long recoveredAttempts, double budgetReopensMs, double firstRetryMs,
			long retriesAfterRecovery, long deniedAfterRecovery, double finalTokens, long outageSucceeded,
			double outageThrottledShare, double outageLatencyMeanMs, double outageLatencyP99Ms, List<Bucket> series) {

		/** @return attempts per logical request during the outage */
		public double outageAttemptsPerRequest() {
			return (double) this.outageAttempts / this.outageRequests;
		}

		/** @return the share of the outage's requests that succeeded */
		public double outageSuccessRate() {
			return (double) this.outageSucceeded / this.outageRequests;
		}

		/** @return attempts per logical request after recovery */
		public double recoveredAttemptsPerRequest() {
			return (double) this.recoveredAttempts / this.recoveredRequests;
		}

	}

	/**
	 * @param variant with or without a throttling schedule
	 * @return the clients' policy: 3 attempts, full jitter, base 100 ms, max 20 s; for the
	 * variants with a throttling schedule, a 429 is throttling and waits from a base of 1 s
	 */
	public static BackoffPolicy policy(Variant variant) {
		BackoffPolicy.Builder policy = BackoffPolicy.builder()
			.maxAttempts(MAX_ATTEMPTS)
			.baseDelay(BASE_DELAY)
			.maxDelay(MAX_DELAY)
			.multiplier(2.0)
			.jitter(Jitter.FULL);
		if (variant.throttling) {
			policy.throttleOn(TooManyRequests.class).throttleBaseDelay(THROTTLE_BASE_DELAY);
		}
		return policy.build();
	}

	/**
	 * Runs the scenario once.
	 * @param scenario what is simulated
	 * @param variant with or without a budget (a new, full one) and a throttling schedule
	 * @param seed seeds the network, the dependency and each client's own generators
	 * @return the figures of the run
	 */
	public static Result run(Scenario scenario, Variant variant, long seed) {
		return new Run(scenario, variant, seed).simulate();
	}

	/** What the dependency answered an attempt. */
	private enum Answer {

		SUCCESS, UNAVAILABLE, TOO_MANY_REQUESTS

	}

	/** An event of one client; {@code answer} only for a {@code RESULT}. */
	private record Event(double time, int client, int type, @Nullable Answer answer) {
	}

	/** A failed attempt, as the client sees it: cheap, no stack trace. */
	private static final class Unavailable extends Exception {

		Unavailable() {
			super("503 Service Unavailable (simulated)", null, false, false);
		}

	}

	/** An attempt the dependency's rate limit refused, as the client sees it. */
	private static final class TooManyRequests extends Exception {

		TooManyRequests() {
			super("429 Too Many Requests (simulated)", null, false, false);
		}

	}

	/** The state of one run. */
	private static final class Run {

		private final Scenario scenario;

		private final @Nullable RetryBudget budget;

		private final BackoffPolicy policy;

		private final SplittableRandom network;

		private final SplittableRandom dependency;

		private final SplittableRandom[] thinking;

		private final BackoffExecutor[] executors;

		private final @Nullable BackoffCall[] calls;

		private final double[] firstArrival;

		private final double[] lastArrival;

		private final PriorityQueue<Event> events = new PriorityQueue<>((a, b) -> Double.compare(a.time, b.time));

		private final long[] bucketRequests;

		private final long[] bucketAttempts;

		private final double[] bucketTokens;

		private int nextBucket;

		private double now;

		private long requests;

		private long attempts;

		private long outageRequests;

		private long outageAttempts;

		private long recoveredRequests;

		private long recoveredAttempts;

		private double budgetReopensMs = Double.NaN;

		private double firstRetryMs = Double.NaN;

		private long retriesAfterRecovery;

		private long deniedAfterRecovery;

		private final double[] started;

		private final List<Double> outageLatencies = new ArrayList<>();

		private long outageSucceeded;

		private long attemptsBeforeRecovery;

		private long throttledBeforeRecovery;

		/** The dependency's rate limiter: the attempts it may admit now, and when that was counted. */
		private double admissions;

		private double admissionsCountedAt;

		Run(Scenario scenario, Variant variant, long seed) {
			this.scenario = scenario;
			this.budget = variant.hasBudget() ? RetryBudget.of(MAX_TOKENS, TOKEN_RATIO) : null;
			this.policy = policy(variant);
			this.admissions = burst();
			SplittableRandom root = new SplittableRandom(seed);
			this.network = root.split();
			this.dependency = root.split();
			int clients = scenario.clients();
			this.thinking = new SplittableRandom[clients];
			this.executors = new BackoffExecutor[clients];
			this.calls = new BackoffCall[clients];
			this.firstArrival = new double[clients];
			this.lastArrival = new double[clients];
			this.started = new double[clients];
			for (int client = 0; client < clients; client++) {
				this.thinking[client] = root.split();
				// Each client draws its delays from its own generator, never one shared with the others.
				SplittableRandom jitter = root.split();
				this.executors[client] = BackoffExecutor.builder()
					.clock(() -> (long) (this.now * 1e6))
					.randomSource(() -> jitter)
					.build();
			}
			int buckets = scenario.buckets();
			this.bucketRequests = new long[buckets];
			this.bucketAttempts = new long[buckets];
			this.bucketTokens = new double[buckets];
		}

		Result simulate() {
			for (int client = 0; client < this.scenario.clients(); client++) {
				this.events.add(new Event(think(client), client, SEND, null));
			}
			while (!this.events.isEmpty()) {
				Event event = this.events.poll();
				sampleTokensUntil(event.time);
				this.now = event.time;
				switch (event.type) {
					case SEND -> send(event.client);
					case ARRIVE -> arrive(event.client);
					default -> result(event.client, Objects.requireNonNull(event.answer));
				}
			}
			sampleTokensUntil(Double.POSITIVE_INFINITY);
			List<Bucket> series = new ArrayList<>(this.bucketTokens.length);
			for (int i = 0; i < this.bucketTokens.length; i++) {
				series.add(new Bucket(this.bucketRequests[i], this.bucketAttempts[i], this.bucketTokens[i]));
			}
			return new Result(this.requests, this.attempts, this.outageRequests, this.outageAttempts,
					this.recoveredRequests, this.recoveredAttempts, this.budgetReopensMs, this.firstRetryMs,
					this.retriesAfterRecovery, this.deniedAfterRecovery, tokens(), this.outageSucceeded,
					(double) this.throttledBeforeRecovery / this.attemptsBeforeRecovery, latencyMean(),
					latencyP99(), List.copyOf(series));
		}

		/** Sends the client's next attempt: the first of a new request, or a retry. */
		private void send(int client) {
			BackoffCall call = this.calls[client];
			if (call == null) {
				if (this.now >= this.scenario.durationMs()) {
					return;
				}
				call = this.executors[client].start(this.policy, this.budget, BackoffListener.NONE, null);
				this.calls[client] = call;
				this.started[client] = this.now;
			}
			call.beginAttempt();
			this.events.add(new Event(this.now + Network.hopMs(this.network), client, ARRIVE, null));
		}

		/** The dependency answers the attempt, failing it with the failure rate of the moment. */
		private void arrive(int client) {
			BackoffCall call = this.calls[client];
			this.attempts++;
			int bucket = (int) (this.now / this.scenario.bucketMs());
			boolean first = (call.getAttempts() == 1);
			if (first) {
				this.firstArrival[client] = this.now;
			}
			this.lastArrival[client] = this.now;
			if (bucket < this.bucketAttempts.length) {
				this.bucketAttempts[bucket]++;
				if (first) {
					this.bucketRequests[bucket]++;
				}
			}
			Answer answer = answer();
			this.events.add(new Event(this.now + Network.hopMs(this.network), client, RESULT, answer));
		}

		private Answer answer() {
			if (recovered(this.now)) {
				return (this.dependency.nextDouble() >= this.scenario.residualFailureRate()) ? Answer.SUCCESS
						: Answer.UNAVAILABLE;
			}
			this.attemptsBeforeRecovery++;
			if (!admit()) {
				this.throttledBeforeRecovery++;
				return Answer.TOO_MANY_REQUESTS;
			}
			return (this.dependency.nextDouble() >= this.scenario.outageFailureRate()) ? Answer.SUCCESS
					: Answer.UNAVAILABLE;
		}

		/** Whether the rate limit, if any, admits an attempt now: a token bucket refilled continuously. */
		private boolean admit() {
			double limit = this.scenario.throttleLimitPerSecond();
			if (limit <= 0) {
				return true;
			}
			this.admissions = Math.min(burst(),
					this.admissions + (this.now - this.admissionsCountedAt) * limit / 1000);
			this.admissionsCountedAt = this.now;
			if (this.admissions < 1) {
				return false;
			}
			this.admissions--;
			return true;
		}

		/** The rate limiter's bucket: 10 ms of admissions. */
		private double burst() {
			return this.scenario.throttleLimitPerSecond() / 100;
		}

		/** The client learns the attempt's result and asks the call what follows. */
		private void result(int client, Answer answer) {
			BackoffCall call = this.calls[client];
			boolean afterRecovery = recovered(this.lastArrival[client]);
			if (answer == Answer.SUCCESS) {
				call.succeed();
				finish(client, call);
			}
			else {
				Exception failure = (answer == Answer.TOO_MANY_REQUESTS) ? new TooManyRequests() : new Unavailable();
				Duration delay = call.nextDelay(failure);
				if (delay != null) {
					if (afterRecovery) {
						this.retriesAfterRecovery++;
						if (Double.isNaN(this.firstRetryMs)) {
							this.firstRetryMs = this.now - this.scenario.recoveryMs();
						}
					}
					this.events.add(new Event(this.now + delay.toNanos() / 1e6, client, SEND, null));
				}
				else {
					if (afterRecovery && call.getOutcome() == Outcome.BUDGET_EXHAUSTED) {
						this.deniedAfterRecovery++;
					}
					call.end(failure);
					finish(client, call);
				}
			}
			RetryBudget budget = this.budget;
			if (budget != null && recovered(this.now) && Double.isNaN(this.budgetReopensMs) && budget.allowsRetries()) {
				this.budgetReopensMs = this.now - this.scenario.recoveryMs();
			}
		}

		private void finish(int client, BackoffCall call) {
			this.requests++;
			int attempts = call.getAttempts();
			if (!recovered(this.lastArrival[client])) {
				this.outageRequests++;
				this.outageAttempts += attempts;
				this.outageLatencies.add(this.now - this.started[client]);
				if (call.getOutcome().isSuccess()) {
					this.outageSucceeded++;
				}
			}
			else if (recovered(this.firstArrival[client])) {
				this.recoveredRequests++;
				this.recoveredAttempts += attempts;
			}
			this.calls[client] = null;
			this.events.add(new Event(this.now + think(client), client, SEND, null));
		}

		private double latencyMean() {
			return Statistics.mean(latencies());
		}

		private double latencyP99() {
			return Statistics.quantile(latencies(), 0.99);
		}

		private double[] latencies() {
			return this.outageLatencies.stream().mapToDouble(Double::doubleValue).toArray();
		}

		private boolean recovered(double time) {
			return time >= this.scenario.recoveryMs();
		}

		private double think(int client) {
			return this.scenario.thinkMeanMs() * this.thinking[client].nextExponential();
		}

		private double tokens() {
			RetryBudget budget = this.budget;
			return (budget != null) ? budget.getTokens() : Double.NaN;
		}

		/** Records the tokens at the end of every step that ends before {@code time}. */
		private void sampleTokensUntil(double time) {
			while (this.nextBucket < this.bucketTokens.length
					&& (this.nextBucket + 1) * this.scenario.bucketMs() <= time) {
				this.bucketTokens[this.nextBucket++] = tokens();
			}
		}

	}

}
