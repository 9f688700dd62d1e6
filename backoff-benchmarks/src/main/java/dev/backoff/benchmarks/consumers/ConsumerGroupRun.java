package dev.backoff.benchmarks.consumers;

import java.util.Arrays;
import java.util.SplittableRandom;

import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffPolicy;
import dev.backoff.RetryBudget;
import dev.backoff.benchmarks.consumers.ConsumerGroupModel.Result;
import dev.backoff.benchmarks.consumers.ConsumerGroupModel.Scenario;
import dev.backoff.benchmarks.consumers.ConsumerRetries.Cycle;
import dev.backoff.benchmarks.consumers.ConsumerRetries.Variant;
import org.jspecify.annotations.Nullable;

/**
 * The state of one run of {@link ConsumerGroupModel}, and its events: the consumers whose
 * failed records block their partitions until the back-off stops ({@link PausingRun} for those
 * that pause).
 */
class ConsumerGroupRun {

	final Scenario scenario;

	/** The run's generators are split from it: the partitions' arrivals, then the consumers' jitter, then any other. */
	final SplittableRandom root;

	private final Variant variant;

	private final @Nullable BackoffPolicy policy;

	private final double[][] arrivals;

	private final int[] arrivedByTick;

	private final SplittableRandom[] jitter;

	private final BackoffExecutor[] executors;

	private final @Nullable RetryBudget[] budgets;

	final int instances;

	/** Per consumer: the record it handles (an index into its arrivals), its cycle, its deliveries. */
	private final int[] record;

	final @Nullable Cycle[] cycles;

	final int[] deliveries;

	/** Per consumer: when it makes its next delivery; infinite when its partition has no more records. */
	final double[] next;

	private final int[] callsPerTick;

	private final int[] lagPerTick;

	private int sampledTicks;

	double now;

	private long records;

	private long calls;

	private long outageCalls;

	private long deadLettered;

	private int maxDeliveries;

	private int minDeadLetterDeliveries = Integer.MAX_VALUE;

	private int maxDeadLetterDeliveries;

	ConsumerGroupRun(Scenario scenario, Variant variant, long seed) {
		this.scenario = scenario;
		this.variant = variant;
		this.policy = variant.policy();
		int consumers = scenario.consumers();
		int ticks = scenario.ticks();
		SplittableRandom root = new SplittableRandom(seed);
		this.root = root;
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
		this.instances = (consumers + scenario.consumersPerInstance() - 1) / scenario.consumersPerInstance();
		this.budgets = new RetryBudget[this.instances];
		for (int instance = 0; instance < this.instances; instance++) {
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
	void deliver(int consumer) {
		Cycle cycle = cycle(consumer);
		this.deliveries[consumer]++;
		boolean succeeded = call();
		double done = this.now + this.scenario.callMs();
		if (succeeded) {
			cycle.succeeded();
			finish(consumer, done);
			return;
		}
		long wait = cycle.failed();
		if (wait < 0) {
			deadLetter(consumer, done);
		}
		else {
			// Seek and redeliver: the partition waits, blocked by this record.
			this.next[consumer] = done + wait;
		}
	}

	/** The record's cycle, started at its first delivery. */
	Cycle cycle(int consumer) {
		Cycle cycle = this.cycles[consumer];
		if (cycle == null) {
			BackoffPolicy policy = this.policy;
			cycle = (policy != null) ? ConsumerRetries.backoff(this.executors[consumer], policy,
					this.budgets[consumer / this.scenario.consumersPerInstance()])
					: ConsumerRetries.spring(this.variant, this.jitter[consumer]);
			this.cycles[consumer] = cycle;
		}
		return cycle;
	}

	/** One call to the downstream, now: counted, and answered as the scenario says. */
	boolean call() {
		this.calls++;
		int callsThisTick = ++this.callsPerTick[(int) (this.now / this.scenario.tickMs())];
		if (this.now < this.scenario.outageStartMs()) {
			return true;
		}
		if (this.now < this.scenario.outageEndMs()) {
			this.outageCalls++;
			return false;
		}
		return callsThisTick <= this.scenario.capacityPerTick();
	}

	void deadLetter(int consumer, double done) {
		this.deadLettered++;
		this.minDeadLetterDeliveries = Math.min(this.minDeadLetterDeliveries, this.deliveries[consumer]);
		this.maxDeadLetterDeliveries = Math.max(this.maxDeadLetterDeliveries, this.deliveries[consumer]);
		finish(consumer, done);
	}

	/** The record is done: the consumer moves to its partition's next record, when it has arrived. */
	void finish(int consumer, double done) {
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
