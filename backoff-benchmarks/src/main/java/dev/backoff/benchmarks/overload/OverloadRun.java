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
import dev.backoff.Pacing;
import dev.backoff.RetryBudget;
import dev.backoff.benchmarks.hedging.VirtualScheduler;
import dev.backoff.benchmarks.overload.OverloadModel.Result;
import dev.backoff.benchmarks.overload.OverloadModel.Scenario;
import dev.backoff.benchmarks.overload.OverloadModel.Variant;
import dev.backoff.benchmarks.simulation.Network;
import org.jspecify.annotations.Nullable;

import static dev.backoff.benchmarks.overload.OverloadModel.BURST_SECONDS;
import static dev.backoff.benchmarks.overload.OverloadModel.CALL_TIMEOUT;
import static dev.backoff.benchmarks.overload.OverloadModel.SERVICE_MS;

/**
 * One run of {@link OverloadModel}: the client instances, the server and the calls, as events of
 * one {@link VirtualScheduler}.
 */
final class OverloadRun {

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
	static final class Client {

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
			this.admission = variant.admission ? new Admission(variant.ratio, Admission.DEFAULT_WINDOW,
					Admission.DEFAULT_MAX_REJECTION, scheduler::nanoTime, () -> draws) : null;
			this.pacing = variant.pacing ? new Pacing(scheduler::nanoTime) : null;
			this.aws = (variant == Variant.AWS) ? new AwsAdaptive(scheduler::nanoTime) : null;
		}

	}

	private final Scenario scenario;

	private final BackoffPolicy policy = OverloadModel.policy();

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

	OverloadRun(Scenario scenario, Variant variant, long seed) {
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
