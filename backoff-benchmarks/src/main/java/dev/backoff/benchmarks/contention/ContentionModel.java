package dev.backoff.benchmarks.contention;

import java.time.Duration;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

import dev.backoff.BackoffDelays;
import dev.backoff.BackoffPolicy;
import dev.backoff.Jitter;
import dev.backoff.benchmarks.simulation.Network;

/**
 * A discrete-event model of Marc Brooker's experiment ("Exponential Backoff And Jitter", AWS
 * Architecture Blog, 2015): N clients start at t = 0, each reads a row's version and writes it
 * back conditionally; a write succeeds only if the version is still the one the client read.
 * Each of the 4 one-way network hops takes |Normal(10 ms, 2 ms)|; the server takes no time.
 * A client that fails waits its next delay and starts over.
 *
 * <p>Events are processed in simulated time order. A read sees the version at its arrival
 * at the server; the write arrives 2 hops later (response, then request) and succeeds only if
 * the version is unchanged; the client learns the result one hop after that.
 */
public final class ContentionModel {

	/** How a client waits after a failed write. */
	public enum Strategy {

		/** Retries at once: no backoff at all. */
		NO_BACKOFF(null),

		/** Capped exponential, no jitter. */
		NONE(Jitter.NONE),

		/** Full jitter. */
		FULL(Jitter.FULL),

		/** Equal jitter. */
		EQUAL(Jitter.EQUAL),

		/** Decorrelated jitter (base delay 5 ms). */
		DECORRELATED(Jitter.DECORRELATED);

		private final BackoffPolicy policy;

		Strategy(Jitter jitter) {
			BackoffPolicy.Builder builder = BackoffPolicy.builder()
				.maxAttempts(Integer.MAX_VALUE)
				.maxDelay(MAX_DELAY)
				.multiplier(2.0)
				.baseDelay(BASE_DELAY)
				.jitter((jitter != null) ? jitter : Jitter.NONE);
			if (jitter == Jitter.DECORRELATED) {
				builder.baseDelay(Duration.ofMillis(5));
			}
			this.policy = (jitter != null) ? builder.build() : null;
		}

		/** @return the policy, or {@code null} for {@link #NO_BACKOFF} */
		public BackoffPolicy policy() {
			return this.policy;
		}

	}

	/** The first retry's ceiling (decorrelated: 5 ms). */
	public static final Duration BASE_DELAY = Duration.ofMillis(10);

	/** The cap of every delay. */
	public static final Duration MAX_DELAY = Duration.ofMillis(2000);

	private static final int READ_ARRIVES = 0;

	private static final int WRITE_ARRIVES = 1;

	private static final int RESULT_ARRIVES = 2;

	private ContentionModel() {
	}

	/**
	 * The outcome of one run.
	 * @param work the writes made by all clients together
	 * @param timeMs when the last client learned that its write succeeded
	 */
	public record Result(long work, double timeMs) {
	}

	private record Event(double time, int client, int type, boolean success) {
	}

	/**
	 * Runs the experiment once.
	 * @param strategy how clients wait
	 * @param clients how many clients, at least 1
	 * @param seed seeds the network and each client's own generator
	 * @return the work and the completion time
	 */
	public static Result run(Strategy strategy, int clients, long seed) {
		SplittableRandom network = new SplittableRandom(seed);
		BackoffDelays[] delays = new BackoffDelays[clients];
		long[] readVersion = new long[clients];
		PriorityQueue<Event> events = new PriorityQueue<>(
				(a, b) -> Double.compare(a.time, b.time));
		for (int client = 0; client < clients; client++) {
			if (strategy.policy() != null) {
				// Each client draws from its own generator, never one shared with the others.
				RandomGenerator own = network.split();
				delays[client] = strategy.policy().getSchedule().delays(own);
			}
			events.add(new Event(Network.hopMs(network), client, READ_ARRIVES, false));
		}
		long version = 0;
		long work = 0;
		int done = 0;
		double last = 0;
		while (done < clients) {
			Event event = events.poll();
			int client = event.client;
			switch (event.type) {
				case READ_ARRIVES -> {
					readVersion[client] = version;
					double writeArrives = event.time + Network.hopMs(network) + Network.hopMs(network);
					events.add(new Event(writeArrives, client, WRITE_ARRIVES, false));
				}
				case WRITE_ARRIVES -> {
					work++;
					boolean success = (readVersion[client] == version);
					if (success) {
						version++;
					}
					events.add(new Event(event.time + Network.hopMs(network), client, RESULT_ARRIVES, success));
				}
				default -> {
					if (event.success) {
						done++;
						last = Math.max(last, event.time);
					}
					else {
						double waitMs = (delays[client] != null) ? delays[client].nextNanos() / 1e6 : 0;
						double readArrives = event.time + waitMs + Network.hopMs(network);
						events.add(new Event(readArrives, client, READ_ARRIVES, false));
					}
				}
			}
		}
		return new Result(work, last);
	}

}
