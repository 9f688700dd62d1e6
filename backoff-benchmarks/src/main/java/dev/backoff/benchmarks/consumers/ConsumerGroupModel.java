package dev.backoff.benchmarks.consumers;

import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;

import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffPolicy;
import dev.backoff.RetryBudget;
import dev.backoff.benchmarks.consumers.ConsumerRetries.Cycle;
import dev.backoff.benchmarks.consumers.ConsumerRetries.Variant;
import dev.backoff.spring.kafka.OutageGate;
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
		 * @return the group's lag when the downstream recovers
		 */
		public int backlog(Scenario scenario) {
			return this.lagPerTick[(int) (scenario.outageEndMs() / scenario.tickMs()) - 1];
		}

		/**
		 * The shortest drain the downstream's capacity allows: the backlog at recovery over what
		 * the capacity leaves beside the arriving records.
		 * @param scenario the scenario of the run
		 * @return the backlog ÷ (capacity − arrival rate), in milliseconds
		 */
		public double minDrainMs(Scenario scenario) {
			double capacityPerSecond = scenario.capacityPerTick() * 1000 / scenario.tickMs();
			return backlog(scenario) * 1000 / (capacityPerSecond - scenario.consumers() * scenario.arrivalsPerSecond());
		}

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
		return run(scenario, variant, seed, MAX_PAUSE, PausingBreaker.Settings.DEFAULTS);
	}

	/**
	 * Runs the scenario once, with outage mode's longest pause and the breaker's settings as given.
	 * @param scenario what is simulated
	 * @param variant how the consumers retry
	 * @param seed seeds the arrivals and each consumer's jitter
	 * @param maxPause outage mode's {@code outage-max-pause}
	 * @param breaker the circuit breaker's settings
	 * @return the figures of the run
	 */
	static Result run(Scenario scenario, Variant variant, long seed, Duration maxPause,
			PausingBreaker.Settings breaker) {
		ConsumerGroupRun run = (variant.isOutageMode() || variant.isCircuitBreaker())
				? new PausingRun(scenario, variant, seed, maxPause, breaker)
				: new ConsumerGroupRun(scenario, variant, seed);
		return run.simulate();
	}

	/** Outage mode's first pause: {@code backoff.kafka.outage-probe-delay}'s default. */
	static final Duration PROBE_DELAY = Duration.ofSeconds(1);

	/** Outage mode's longest pause: {@code backoff.kafka.outage-max-pause}'s default. */
	static final Duration MAX_PAUSE = Duration.ofSeconds(10);

	/** How soon a record whose call the breaker did not permit is redelivered, at the least: one poll. */
	static final double POLL_MS = 1;


}
