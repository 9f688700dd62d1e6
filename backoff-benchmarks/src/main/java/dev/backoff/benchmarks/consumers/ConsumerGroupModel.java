package dev.backoff.benchmarks.consumers;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.function.Function;

import dev.backoff.BackoffDelays;
import dev.backoff.BackoffPolicy;
import dev.backoff.Jitter;
import dev.backoff.RetryBudget;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.util.backoff.FixedBackOff;

/**
 * A Kafka consumer group against a downstream that fails for a while, then recovers with a
 * limited capacity: virtual time in ticks of {@value #TICK_MS} ms, no threads. Each consumer
 * handles its partition's records in order, one downstream call per delivery; a failed record
 * blocks its partition and is redelivered after its back-off's wait (as Spring Kafka's
 * {@code DefaultErrorHandler} seeks and redelivers) until the back-off says STOP, when it goes
 * to the dead-letter topic. The back-offs are the real classes: Spring's {@code FixedBackOff}
 * and {@code ExponentialBackOff}, and Backoff's schedules and {@link RetryBudget}.
 */
public final class ConsumerGroupModel {

	static final int TICK_MS = 10;

	static final int CONSUMERS = 50;

	/** Consumers per instance: each instance has its own retry budget per policy, as each JVM does. */
	static final int CONSUMERS_PER_INSTANCE = 10;

	static final int DURATION_MS = 300_000;

	static final int OUTAGE_FROM_MS = 5_000;

	static final int OUTAGE_TO_MS = 35_000;

	/** Records each consumer's partition receives per second: 100 per second for the group. */
	static final double RECORDS_PER_CONSUMER_PER_S = 2;

	/** Calls the recovered downstream serves per second: 1.5 times the records' steady rate. */
	static final int CAPACITY_PER_S = 150;

	/** Deliveries of a record at most, the first included, in every variant. */
	static final int MAX_ATTEMPTS = 10;

	private ConsumerGroupModel() {
	}

	/** The back-offs compared, each with {@value #MAX_ATTEMPTS} deliveries at most. */
	public enum Variant {

		KAFKA_DEFAULT("Spring Kafka's default FixedBackOff(0, 9)", false,
				(random) -> new FixedBackOff(0, MAX_ATTEMPTS - 1)),

		FRAMEWORK_EXPONENTIAL("Framework 7 ExponentialBackOff, 1 s x2 to 30 s, jitter 500 ms", false, (random) -> {
			ExponentialBackOff backOff = new ExponentialBackOff(1000, 2.0);
			backOff.setMaxInterval(30_000);
			backOff.setJitter(500);
			backOff.setMaxAttempts(MAX_ATTEMPTS - 1);
			return backOff;
		}),

		FULL("Backoff full jitter, 1 s x2 to 30 s", false, (random) -> backoff(Jitter.FULL, random)),

		DECORRELATED("Backoff decorrelated jitter, 1 s to 30 s", false, (random) -> backoff(Jitter.DECORRELATED, random)),

		FULL_BUDGET("Backoff full jitter + retry budget", true, (random) -> backoff(Jitter.FULL, random)),

		DECORRELATED_BUDGET("Backoff decorrelated jitter + retry budget", true,
				(random) -> backoff(Jitter.DECORRELATED, random));

		private final String label;

		private final boolean budget;

		private final Function<SplittableRandom, BackOff> backOff;

		Variant(String label, boolean budget, Function<SplittableRandom, BackOff> backOff) {
			this.label = label;
			this.budget = budget;
			this.backOff = backOff;
		}

		public String label() {
			return this.label;
		}

	}

	/** Backoff's schedule as Spring's {@code BackOff}, its waits drawn from the run's seeded random. */
	private static BackOff backoff(Jitter jitter, SplittableRandom random) {
		BackoffPolicy policy = BackoffPolicy.builder()
			.maxAttempts(MAX_ATTEMPTS)
			.baseDelay(Duration.ofSeconds(1))
			.multiplier(2)
			.maxDelay(Duration.ofSeconds(30))
			.jitter(jitter)
			.build();
		return () -> {
			BackoffDelays delays = policy.getSchedule().delays(random.split());
			int[] retries = { 0 };
			return () -> (++retries[0] < MAX_ATTEMPTS) ? delays.nextNanos() / 1_000_000 : BackOffExecution.STOP;
		};
	}

	/**
	 * One run.
	 * @param peakLoad the most calls in one second after the outage, as a multiple of the capacity
	 * @param drainS seconds from the outage's end until the group's backlog is down to a record per partition, or NaN if never
	 * @param deadLetters records sent to the dead-letter topic
	 * @param calls downstream calls in all
	 * @param callsPerSecond the downstream's calls in each second of the run
	 */
	public record Result(double peakLoad, double drainS, int deadLetters, long calls, int[] callsPerSecond) {

		/** @return the calls made while the downstream was down: the load that retries put on it then */
		public long outageCalls() {
			long outage = 0;
			for (int second = OUTAGE_FROM_MS / 1000; second < OUTAGE_TO_MS / 1000; second++) {
				outage += this.callsPerSecond[second];
			}
			return outage;
		}

	}

	public static Result run(Variant variant, long seed) {
		SplittableRandom random = new SplittableRandom(seed);
		int[] backlog = new int[CONSUMERS];
		double[] nextArrivalMs = new double[CONSUMERS];
		long[] readyAtMs = new long[CONSUMERS];
		BackOffExecution[] retrying = new BackOffExecution[CONSUMERS];
		RetryBudget[] budgets = new RetryBudget[CONSUMERS / CONSUMERS_PER_INSTANCE];
		for (int i = 0; i < budgets.length; i++) {
			budgets[i] = RetryBudget.of(RetryBudget.DEFAULT_MAX_TOKENS, RetryBudget.DEFAULT_TOKEN_RATIO,
					RetryBudget.DEFAULT_THROTTLE_COST);
		}
		BackOff backOff = variant.backOff.apply(random.split());
		double arrivalMs = 1000 / RECORDS_PER_CONSUMER_PER_S;
		for (int c = 0; c < CONSUMERS; c++) {
			nextArrivalMs[c] = random.nextDouble() * arrivalMs;
		}
		int[] perSecond = new int[DURATION_MS / 1000];
		int perWindow = CAPACITY_PER_S / 10;
		int windowCalls = 0;
		int deadLetters = 0;
		long calls = 0;
		double drainS = Double.NaN;
		int[] order = new int[CONSUMERS];
		for (int c = 0; c < CONSUMERS; c++) {
			order[c] = c;
		}
		for (long now = 0; now < DURATION_MS; now += TICK_MS) {
			if (now % 100 == 0) {
				windowCalls = 0;
			}
			boolean outage = now >= OUTAGE_FROM_MS && now < OUTAGE_TO_MS;
			shuffle(order, random);
			for (int c : order) {
				while (nextArrivalMs[c] <= now) {
					backlog[c]++;
					nextArrivalMs[c] += arrivalMs;
				}
				if (backlog[c] == 0 || readyAtMs[c] > now) {
					continue;
				}
				calls++;
				perSecond[(int) (now / 1000)]++;
				boolean success = !outage && windowCalls < perWindow;
				windowCalls++;
				RetryBudget budget = variant.budget ? budgets[c / CONSUMERS_PER_INSTANCE] : null;
				if (success) {
					backlog[c]--;
					retrying[c] = null;
					if (budget != null) {
						budget.onSuccess();
					}
					readyAtMs[c] = now + TICK_MS;
					continue;
				}
				if (retrying[c] == null) {
					retrying[c] = backOff.start();
				}
				long wait = retrying[c].nextBackOff();
				if (budget != null && !budget.onFailure(false)) {
					wait = BackOffExecution.STOP;
				}
				if (wait == BackOffExecution.STOP) {
					deadLetters++;
					backlog[c]--;
					retrying[c] = null;
					readyAtMs[c] = now + TICK_MS;
				}
				else {
					readyAtMs[c] = now + Math.max(TICK_MS, wait);
				}
			}
			if (now >= OUTAGE_TO_MS && Double.isNaN(drainS) && caughtUp(backlog)) {
				drainS = (now - OUTAGE_TO_MS) / 1000.0;
			}
		}
		int peak = 0;
		for (int second = OUTAGE_TO_MS / 1000; second < perSecond.length; second++) {
			peak = Math.max(peak, perSecond[second]);
		}
		return new Result((double) peak / CAPACITY_PER_S, drainS, deadLetters, calls, perSecond);
	}

	/** The group's backlog down to one record per partition, about half a second of arrivals: caught up. */
	private static boolean caughtUp(int[] backlog) {
		int total = 0;
		for (int records : backlog) {
			total += records;
		}
		return total <= backlog.length;
	}

	private static void shuffle(int[] order, SplittableRandom random) {
		for (int i = order.length - 1; i > 0; i--) {
			int j = random.nextInt(i + 1);
			int swap = order[i];
			order[i] = order[j];
			order[j] = swap;
		}
	}

}
