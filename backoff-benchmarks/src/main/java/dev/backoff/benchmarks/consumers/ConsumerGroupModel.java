package dev.backoff.benchmarks.consumers;

import java.util.Arrays;
import java.util.SplittableRandom;

import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffPolicy;
import dev.backoff.RetryBudget;
import dev.backoff.benchmarks.consumers.ConsumerRetries.Cycle;
import dev.backoff.benchmarks.consumers.ConsumerRetries.Variant;
import org.jspecify.annotations.Nullable;

import org.springframework.util.backoff.BackOffExecution;

/**
 * A discrete-event model of a Kafka consumer group whose listener calls a downstream service
 * that fails every call for a while (an outage) and then recovers with a limited capacity.
 *
 * <p>Each consumer owns one partition, on which records arrive as a Poisson process, and
 * handles them one at a time, in order: each delivery is one call to the downstream, taking
 * {@link Scenario#callMs()}. A failed record blocks its partition, as Spring Kafka's
 * {@code DefaultErrorHandler} does (seek, wait the back-off, redeliver), until the variant's
 * back-off says {@code STOP}; then it goes to the dead-letter topic and the consumer moves on.
 * Before the outage the downstream answers every call; during it, none; after it, the first
 * {@link Scenario#capacityPerTick()} calls that start in each tick succeed and the others fail,
 * as an overloaded service sheds load.
 *
 * <p>Time is virtual: events are processed in time order, nothing sleeps, and everything is
 * drawn from generators split from the seed (each partition's arrivals, then each consumer's
 * jitter), so a seed gives the same run, and the same arrivals to every variant. The waits are
 * the real back-offs': Spring's {@code FixedBackOff} and {@code ExponentialBackOff} (see
 * {@link ConsumerRetries.SeededJitter} for its jitter), and for Backoff's variants a
 * {@code BackoffCall} of the policy per record, on a virtual clock, with the instance's real
 * {@link RetryBudget}.
 */
public final class ConsumerGroupModel {

	private ConsumerGroupModel() {
	}

	/**
	 * What is simulated.
	 * @param consumers the consumers of the group, one partition each
	 * @param consumersPerInstance the consumers of one application instance, which share its
	 * retry budget (the budget variants)
	 * @param arrivalsPerSecond the records arriving on each partition per second, on average
	 * @param callMs how long one delivery's call to the downstream takes, failed or not
	 * @param outageStartMs when the downstream starts failing every call
	 * @param outageEndMs when it recovers
	 * @param capacityPerTick the calls per tick it answers after recovery; those beyond fail
	 * @param tickMs the width of one tick, of the capacity and of the time series
	 * @param durationMs the simulated time
	 */
	public record Scenario(int consumers, int consumersPerInstance, double arrivalsPerSecond, double callMs,
			double outageStartMs, double outageEndMs, int capacityPerTick, double tickMs, double durationMs) {

		/**
		 * @return 50 consumers in 10 instances, 10 records per second on each partition (500
		 * calls per second when nothing fails), calls of 20 ms; a 60 s outage from 10 s, after
		 * which the downstream answers 100 calls per 100 ms tick, twice the steady load; 240 s
		 */
		public static Scenario defaults() {
			return new Scenario(50, 5, 10, 20, 10_000, 70_000, 100, 100, 240_000);
		}

		/** @return the ticks of the time series */
		public int ticks() {
			return (int) Math.ceil(this.durationMs / this.tickMs);
		}

		/** @return the outage's length in seconds */
		public double outageSeconds() {
			return (this.outageEndMs - this.outageStartMs) / 1000;
		}

	}

	/**
	 * The outcome of one run. A record is done when its last delivery is made: the one that
	 * succeeded, or the one after which it went to the dead-letter topic.
	 * @param records the records done
	 * @param calls the calls the downstream received: every delivery
	 * @param outageCalls those it received during the outage
	 * @param peakCallsPerTick the most calls it received in one tick after recovery
	 * @param drainMs how long after recovery the group's lag (records arrived and not done) was
	 * back to at most one per consumer, at a tick's end; NaN if it never was
	 * @param deadLettered the records sent to the dead-letter topic
	 * @param maxDeliveries the most deliveries of one record
	 * @param minDeadLetterDeliveries the fewest deliveries of a record sent to the dead-letter
	 * topic (0 if none was)
	 * @param maxDeadLetterDeliveries the most deliveries of a record sent to the dead-letter topic
	 * @param callsPerTick the calls the downstream received, tick by tick
	 * @param lagPerTick the group's lag at the end of each tick
	 */
	public record Result(long records, long calls, long outageCalls, int peakCallsPerTick, double drainMs,
			long deadLettered, int maxDeliveries, int minDeadLetterDeliveries, int maxDeadLetterDeliveries,
			int[] callsPerTick, int[] lagPerTick) {

		/**
		 * @param scenario the scenario of the run
		 * @return the peak after recovery as a multiple of the downstream's capacity
		 */
		public double peakLoad(Scenario scenario) {
			return (double) this.peakCallsPerTick / scenario.capacityPerTick();
		}

	}

	/**
	 * Runs the scenario once.
	 * @param scenario what is simulated
	 * @param variant how the consumers retry
	 * @param seed seeds the arrivals and each consumer's jitter
	 * @return the figures of the run
	 */
	public static Result run(Scenario scenario, Variant variant, long seed) {
		return new Run(scenario, variant, seed).simulate();
	}

	/** The state of one run. */
	private static final class Run {

		private final Scenario scenario;

		private final Variant variant;

		private final @Nullable BackoffPolicy policy;

		private final double[][] arrivals;

		private final int[] arrivedByTick;

		private final SplittableRandom[] jitter;

		private final BackoffExecutor[] executors;

		private final @Nullable RetryBudget[] budgets;

		/** Per consumer: the record it handles (an index into its arrivals), its cycle, its deliveries. */
		private final int[] record;

		private final @Nullable Cycle[] cycles;

		private final int[] deliveries;

		/** Per consumer: when it makes its next delivery; infinite when its partition has no more records. */
		private final double[] next;

		private final int[] callsPerTick;

		private final int[] lagPerTick;

		private int sampledTicks;

		private double now;

		private long records;

		private long calls;

		private long outageCalls;

		private long deadLettered;

		private int maxDeliveries;

		private int minDeadLetterDeliveries = Integer.MAX_VALUE;

		private int maxDeadLetterDeliveries;

		Run(Scenario scenario, Variant variant, long seed) {
			this.scenario = scenario;
			this.variant = variant;
			this.policy = variant.policy();
			int consumers = scenario.consumers();
			int ticks = scenario.ticks();
			SplittableRandom root = new SplittableRandom(seed);
			this.arrivals = new double[consumers][];
			this.arrivedByTick = new int[ticks];
			for (int consumer = 0; consumer < consumers; consumer++) {
				this.arrivals[consumer] = arrivals(root.split());
			}
			for (int tick = 1; tick < ticks; tick++) {
				this.arrivedByTick[tick] += this.arrivedByTick[tick - 1];
			}
			this.jitter = new SplittableRandom[consumers];
			this.executors = new BackoffExecutor[consumers];
			for (int consumer = 0; consumer < consumers; consumer++) {
				// Each consumer draws its waits from its own generator, as each has its own back-off.
				SplittableRandom random = root.split();
				this.jitter[consumer] = random;
				this.executors[consumer] = BackoffExecutor.builder()
					.clock(() -> (long) (this.now * 1e6))
					.randomSource(() -> random)
					.build();
			}
			int instances = (consumers + scenario.consumersPerInstance() - 1) / scenario.consumersPerInstance();
			this.budgets = new RetryBudget[instances];
			for (int instance = 0; instance < instances; instance++) {
				this.budgets[instance] = variant.hasBudget() ? RetryBudget.defaults() : null;
			}
			this.record = new int[consumers];
			this.cycles = new Cycle[consumers];
			this.deliveries = new int[consumers];
			this.next = new double[consumers];
			for (int consumer = 0; consumer < consumers; consumer++) {
				this.next[consumer] = (this.arrivals[consumer].length > 0) ? this.arrivals[consumer][0]
						: Double.POSITIVE_INFINITY;
			}
			this.callsPerTick = new int[ticks];
			this.lagPerTick = new int[ticks];
		}

		/** A partition's arrival times; counts them per tick into {@code arrivedByTick}, summed up later. */
		private double[] arrivals(SplittableRandom random) {
			double meanGapMs = 1000 / this.scenario.arrivalsPerSecond();
			double[] times = new double[16];
			int count = 0;
			double time = meanGapMs * random.nextExponential();
			while (time < this.scenario.durationMs()) {
				if (count == times.length) {
					times = Arrays.copyOf(times, count * 2);
				}
				times[count++] = time;
				this.arrivedByTick[(int) (time / this.scenario.tickMs())]++;
				time += meanGapMs * random.nextExponential();
			}
			return Arrays.copyOf(times, count);
		}

		Result simulate() {
			while (true) {
				int consumer = soonest();
				double time = this.next[consumer];
				if (time >= this.scenario.durationMs()) {
					break;
				}
				sampleLagUntil(time);
				this.now = time;
				deliver(consumer);
			}
			sampleLagUntil(Double.POSITIVE_INFINITY);
			int recovered = (int) (this.scenario.outageEndMs() / this.scenario.tickMs());
			int peak = Arrays.stream(this.callsPerTick, recovered, this.callsPerTick.length).max().orElse(0);
			return new Result(this.records, this.calls, this.outageCalls, peak, drainMs(recovered),
					this.deadLettered, this.maxDeliveries,
					(this.deadLettered > 0) ? this.minDeadLetterDeliveries : 0, this.maxDeadLetterDeliveries,
					this.callsPerTick, this.lagPerTick);
		}

		/** The consumer whose next delivery comes first; the lowest index among equals. */
		private int soonest() {
			int soonest = 0;
			for (int consumer = 1; consumer < this.next.length; consumer++) {
				if (this.next[consumer] < this.next[soonest]) {
					soonest = consumer;
				}
			}
			return soonest;
		}

		/** One delivery of the consumer's record: one call, its answer, and what the consumer does next. */
		private void deliver(int consumer) {
			Cycle cycle = this.cycles[consumer];
			if (cycle == null) {
				BackoffPolicy policy = this.policy;
				cycle = (policy != null) ? ConsumerRetries.backoff(this.executors[consumer], policy,
						this.budgets[consumer / this.scenario.consumersPerInstance()])
						: ConsumerRetries.spring(this.variant, this.jitter[consumer]);
				this.cycles[consumer] = cycle;
			}
			this.deliveries[consumer]++;
			this.calls++;
			int tick = (int) (this.now / this.scenario.tickMs());
			int callsThisTick = ++this.callsPerTick[tick];
			boolean succeeded;
			if (this.now < this.scenario.outageStartMs()) {
				succeeded = true;
			}
			else if (this.now < this.scenario.outageEndMs()) {
				this.outageCalls++;
				succeeded = false;
			}
			else {
				succeeded = callsThisTick <= this.scenario.capacityPerTick();
			}
			double done = this.now + this.scenario.callMs();
			if (succeeded) {
				cycle.succeeded();
				finish(consumer, done);
				return;
			}
			long wait = cycle.failed();
			if (wait == BackOffExecution.STOP) {
				this.deadLettered++;
				this.minDeadLetterDeliveries = Math.min(this.minDeadLetterDeliveries, this.deliveries[consumer]);
				this.maxDeadLetterDeliveries = Math.max(this.maxDeadLetterDeliveries, this.deliveries[consumer]);
				finish(consumer, done);
			}
			else {
				// Seek and redeliver: the partition waits, blocked by this record.
				this.next[consumer] = done + wait;
			}
		}

		/** The record is done: the consumer moves to its partition's next record, when it has arrived. */
		private void finish(int consumer, double done) {
			this.records++;
			this.maxDeliveries = Math.max(this.maxDeliveries, this.deliveries[consumer]);
			this.deliveries[consumer] = 0;
			this.cycles[consumer] = null;
			int next = ++this.record[consumer];
			double[] arrivals = this.arrivals[consumer];
			this.next[consumer] = (next < arrivals.length) ? Math.max(done, arrivals[next]) : Double.POSITIVE_INFINITY;
		}

		/** Records the group's lag at the end of every tick that ends before {@code time}. */
		private void sampleLagUntil(double time) {
			while (this.sampledTicks < this.lagPerTick.length
					&& (this.sampledTicks + 1) * this.scenario.tickMs() <= time) {
				this.lagPerTick[this.sampledTicks] = (int) (this.arrivedByTick[this.sampledTicks] - this.records);
				this.sampledTicks++;
			}
		}

		/** From the first tick that ends after recovery: when the lag is back to one record per consumer. */
		private double drainMs(int recovered) {
			for (int tick = recovered; tick < this.lagPerTick.length; tick++) {
				double end = (tick + 1) * this.scenario.tickMs();
				if (end > this.scenario.outageEndMs() && this.lagPerTick[tick] <= this.scenario.consumers()) {
					return end - this.scenario.outageEndMs();
				}
			}
			return Double.NaN;
		}

	}

}
