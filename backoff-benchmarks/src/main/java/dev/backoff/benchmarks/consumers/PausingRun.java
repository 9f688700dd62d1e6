package dev.backoff.benchmarks.consumers;

import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;

import dev.backoff.benchmarks.consumers.ConsumerGroupModel.Scenario;
import dev.backoff.benchmarks.consumers.ConsumerRetries.Cycle;
import dev.backoff.benchmarks.consumers.ConsumerRetries.Variant;
import dev.backoff.spring.kafka.OutageGate;
import org.jspecify.annotations.Nullable;

/**
 * A run whose consumers pause: in outage mode, each instance's {@link OutageGate} holds the
 * partitions whose retries its budget refused; with Resilience4j's pattern, each instance's
 * {@link PausingBreaker} pauses its whole container while open. Both learn a call's outcome when
 * the call ends, so each event of a consumer is either a call's end or a delivery.
 */
final class PausingRun extends ConsumerGroupRun {

	private static final byte PENDING_NONE = 0;

	private static final byte PENDING_SUCCEEDED = 1;

	private static final byte PENDING_FAILED = 2;

	/** Per instance, in outage mode: its gate (one listener); otherwise null. */
	private final OutageGate<Integer> @Nullable [] gates;

	/** Per instance, with the circuit breaker: its breaker; otherwise null. */
	private final PausingBreaker @Nullable [] breakers;

	/** Per consumer, in outage mode and with the breaker: its call's outcome, told when the call ends. */
	private final byte[] outcomes;

	/** Per consumer, in outage mode: whether it waits for its gate, and whether its call is a held partition's. */
	private final boolean[] waiting;

	private final boolean[] heldDelivery;

	PausingRun(Scenario scenario, Variant variant, long seed, Duration maxPause, PausingBreaker.Settings breaker) {
		super(scenario, variant, seed);
		int consumers = scenario.consumers();
		this.gates = variant.isOutageMode() ? gates(this.instances, this.root, maxPause) : null;
		this.breakers = variant.isCircuitBreaker() ? new PausingBreaker[this.instances] : null;
		if (this.breakers != null) {
			Arrays.setAll(this.breakers, (instance) -> new PausingBreaker(breaker));
		}
		this.outcomes = new byte[consumers];
		this.waiting = new boolean[consumers];
		this.heldDelivery = new boolean[consumers];
	}

	/** One gate per instance, each with its own generator, split after the consumers' (which it leaves as they were). */
	@SuppressWarnings("unchecked")
	private OutageGate<Integer>[] gates(int instances, SplittableRandom root, Duration maxPause) {
		OutageGate<Integer>[] gates = (OutageGate<Integer>[]) new OutageGate<?>[instances];
		for (int instance = 0; instance < instances; instance++) {
			SplittableRandom random = root.split();
			gates[instance] = new OutageGate<>(ConsumerGroupModel.PROBE_DELAY, maxPause, () -> (long) (this.now * 1e6),
					() -> random);
		}
		return gates;
	}

	@Override
	void deliver(int consumer) {
		step(consumer);
	}

	/**
	 * The outage mode's and the circuit breaker's consumers, whose gate or breaker learns a
	 * call's outcome when the call ends: each event is either a call's end or a delivery.
	 */
	private void step(int consumer) {
		int instance = consumer / this.scenario.consumersPerInstance();
		byte outcome = this.outcomes[consumer];
		if (outcome != PENDING_NONE) {
			this.outcomes[consumer] = PENDING_NONE;
			ended(consumer, instance, outcome == PENDING_SUCCEEDED);
			return;
		}
		OutageGate<Integer>[] gates = this.gates;
		PausingBreaker[] breakers = this.breakers;
		if (gates != null) {
			OutageGate<Integer> gate = gates[instance];
			boolean held = gate.isHeld(consumer);
			if (!gate.mayDeliver(consumer)) {
				waitFor(consumer, gate);
				return;
			}
			this.waiting[consumer] = false;
			this.heldDelivery[consumer] = held;
		}
		else if (breakers != null) {
			PausingBreaker breaker = breakers[instance];
			if (breaker.state(this.now) == PausingBreaker.State.OPEN) {
				// The container is paused until the breaker turns half-open.
				this.next[consumer] = breaker.openUntil();
				return;
			}
			if (!breaker.tryAcquire(this.now)) {
				// CallNotPermittedException: a failed delivery that never reaches the downstream.
				this.deliveries[consumer]++;
				long wait = cycle(consumer).failed();
				if (wait < 0) {
					deadLetter(consumer, this.now);
				}
				else {
					this.next[consumer] = this.now + Math.max(wait, ConsumerGroupModel.POLL_MS);
				}
				return;
			}
		}
		cycle(consumer);
		this.deliveries[consumer]++;
		this.outcomes[consumer] = call() ? PENDING_SUCCEEDED : PENDING_FAILED;
		this.next[consumer] = this.now + this.scenario.callMs();
	}

	/** A call of {@link #step} ended now. */
	private void ended(int consumer, int instance, boolean succeeded) {
		Cycle cycle = cycle(consumer);
		OutageGate<Integer>[] gates = this.gates;
		if (gates == null) {
			this.breakers[instance].record(this.now, succeeded);
		}
		if (succeeded) {
			if (gates != null) {
				gates[instance].succeeded(consumer);
			}
			cycle.succeeded();
			finish(consumer, this.now);
		}
		else if (gates != null && this.heldDelivery[consumer]) {
			// A held partition's record failed: nothing of it counts, it waits for the gate.
			gates[instance].failed(consumer);
			this.cycles[consumer] = null;
			waitFor(consumer, gates[instance]);
		}
		else {
			long wait = cycle.failed();
			if (wait == ConsumerRetries.REFUSED && gates != null) {
				gates[instance].refused(consumer);
				this.cycles[consumer] = null;
				waitFor(consumer, gates[instance]);
			}
			else if (wait < 0) {
				deadLetter(consumer, this.now);
			}
			else {
				this.next[consumer] = this.now + wait;
			}
		}
		if (gates != null) {
			// The outcome may have changed the gate: its waiting consumers ask again.
			int first = instance * this.scenario.consumersPerInstance();
			for (int other = first; other < Math.min(first + this.scenario.consumersPerInstance(),
					this.next.length); other++) {
				if (this.waiting[other]) {
					waitFor(other, gates[instance]);
				}
			}
		}
	}

	/** The consumer's partition is held: it asks its gate again when the gate says. */
	private void waitFor(int consumer, OutageGate<Integer> gate) {
		this.waiting[consumer] = true;
		long nanos = gate.nanosUntilNextChange();
		this.next[consumer] = this.now + Math.max(0, nanos) / 1e6;
	}

}
