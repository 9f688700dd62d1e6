package dev.backoff.spring.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.backoff.NanoClock;
import dev.backoff.RandomSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * One Kafka listener's outage: its {@link OutageGate} decides which partitions are held and
 * when one record may probe; {@link ConsumerPauses} pauses and resumes them on each consumer.
 * It tells the {@link KafkaOutageListener}s what changes, once; keeps an outage across a
 * rebalance that revokes all its partitions; and lists the listener's state. One per listener,
 * shared by its child containers (concurrency), so that the consumers of one instance probe once.
 */
final class KafkaListenerOutage {

	private static final Log logger = LogFactory.getLog(KafkaListenerOutage.class);

	private final String listenerId;

	private final String policy;

	private final KafkaOutages outages;

	private final NanoClock clock;

	private final OutageGate<TopicPartition> gate;

	private final ConsumerPauses pauses;

	/** The held partitions the listeners were told of, with when: to tell them of each change once. */
	private final Map<TopicPartition, Long> told = new HashMap<>();

	/** Successes of the listener's records: a failure of a held partition after one is the record's own. */
	private final AtomicLong successes = new AtomicLong();

	private final long probeDelayNanos;

	/** A look at the gate is scheduled: guarded by {@link #told}. */
	private boolean checkPending;

	/** The start of an outage whose partitions a rebalance revoked: it goes on when they are assigned again. */
	private volatile long carriedStart;

	private volatile boolean carried;

	/** Whether the next delivery of a held partition is a probe: the first after each pause. */
	private volatile boolean awaitingProbe;

	/** The partitions whose probe is under way, to tell its outcome. */
	private final Set<TopicPartition> probing = ConcurrentHashMap.newKeySet();

	KafkaListenerOutage(String listenerId, String policy, MessageListenerContainer container, KafkaOutages outages,
			Duration probeDelay, Duration maxPause, NanoClock clock, RandomSource random) {
		this.listenerId = listenerId;
		this.policy = policy;
		this.outages = outages;
		this.clock = clock;
		this.gate = new OutageGate<>(probeDelay, maxPause, clock, random);
		this.probeDelayNanos = probeDelay.toNanos();
		this.pauses = new ConsumerPauses(container, this.gate, outages, clock);
	}

	String listenerId() {
		return this.listenerId;
	}

	/** @return the listener's state now, for {@link KafkaOutages#listeners()} */
	ListenerOutage state() {
		Set<TopicPartition> held = this.gate.held();
		Instant since = null;
		if (this.gate.inOutage()) {
			long start = this.carried ? this.carriedStart : this.gate.outageStartNanos();
			since = this.outages.clock().instant().minusNanos(Math.max(0, this.clock.nanoTime() - start));
		}
		return new ListenerOutage(this.listenerId, this.policy, held, since);
	}

	/** @return the successes of the listener's records so far */
	long successes() {
		return this.successes.get();
	}

	boolean isHeld(TopicPartition partition) {
		return this.gate.isHeld(partition);
	}

	/**
	 * Asks the gate whether a record of this partition may be delivered now: once per record.
	 * @return {@code false} to hold it back
	 */
	boolean mayDeliver(TopicPartition partition) {
		if (!this.gate.mayDeliver(partition)) {
			return false;
		}
		if (this.awaitingProbe && isHeld(partition)) {
			this.awaitingProbe = false;
			this.probing.add(partition);
		}
		return true;
	}

	/** A record of the partition succeeded. */
	void succeeded(TopicPartition partition) {
		this.successes.incrementAndGet();
		if (!this.gate.inOutage() && nothingTold()) {
			return;
		}
		this.gate.succeeded(partition);
		if (this.probing.remove(partition)) {
			tell((listener) -> listener.probed(this.listenerId, this.policy, true));
		}
		sync();
		if (this.gate.nanosUntilNextChange() == 0) {
			wakeSoon();
		}
	}

	/** The budget refused a retry of a record of the partition: hold it. */
	void refused(TopicPartition partition) {
		boolean was = this.gate.inOutage();
		this.gate.refused(partition);
		if (!was) {
			this.awaitingProbe = true;
			logger.warn("Listener '" + this.listenerId + "': the retry budget of policy '" + this.policy
					+ "' refused a retry, so its failing partitions pause until a probe succeeds; their records "
					+ "are kept for redelivery, not recovered");
		}
		sync();
	}

	/** A delivery of a held partition failed: a probe, or a record while the gate ramps. */
	void failed(TopicPartition partition) {
		this.gate.failed(partition);
		if (this.probing.remove(partition)) {
			this.awaitingProbe = true;
			tell((listener) -> listener.probed(this.listenerId, this.policy, false));
		}
		sync();
	}

	/** The record is held back: not processed now, not recovered, delivered again later. */
	void heldBack(ConsumerRecord<?, ?> record) {
		tell((listener) -> listener.heldBack(this.listenerId, this.policy, record));
	}

	/** Pauses the partition on this consumer, as Backoff's pause; on the consumer's thread. */
	void pause(Consumer<?, ?> consumer, TopicPartition partition) {
		this.pauses.pause(consumer, partition);
	}

	/** Just before the consumer polls, on its thread: its pauses follow the gate ({@link ConsumerPauses}). */
	void beforePoll(Consumer<?, ?> consumer) {
		if (this.pauses.hasNone(consumer)) {
			// A ramp ends by itself, with nothing paused: its partitions are told resumed here.
			if (!nothingTold()) {
				sync();
			}
			return;
		}
		sync();
		this.pauses.beforePoll(consumer);
	}

	/** Wakes the consumers soon: another consumer of the listener may have its held partitions due now. */
	void wakeSoon() {
		this.pauses.wakeIn(0);
	}

	/** Partitions revoked (or lost) from this consumer: forgotten; an outage on goes on when partitions come back. */
	void revoked(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
		boolean was = this.gate.inOutage();
		long start = this.carried ? this.carriedStart : this.gate.outageStartNanos();
		for (TopicPartition partition : partitions) {
			this.pauses.release(consumer, partition);
			this.gate.forget(partition);
			this.probing.remove(partition);
		}
		if (was && !this.gate.inOutage()) {
			this.carriedStart = start;
			this.carried = true;
		}
		sync();
	}

	/**
	 * Partitions assigned to this consumer: during an outage (or while the budget still refuses
	 * retries after one that a rebalance interrupted) they start held and paused.
	 */
	void assigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions, boolean budgetRefuses) {
		if (partitions.isEmpty() || !(this.gate.inOutage() || (this.carried && budgetRefuses))) {
			return;
		}
		boolean was = this.gate.inOutage();
		for (TopicPartition partition : partitions) {
			this.gate.refused(partition);
			pause(consumer, partition);
		}
		if (!was) {
			this.awaitingProbe = true;
		}
		sync();
	}

	private boolean nothingTold() {
		synchronized (this.told) {
			return this.told.isEmpty();
		}
	}

	/** Tells the listeners of each partition the gate started or stopped holding since last told. */
	private void sync() {
		Set<TopicPartition> held = this.gate.held();
		long now = this.clock.nanoTime();
		List<TopicPartition> paused = new ArrayList<>();
		Map<TopicPartition, Duration> resumed = new HashMap<>();
		synchronized (this.told) {
			for (TopicPartition partition : held) {
				if (this.told.putIfAbsent(partition, now) == null) {
					paused.add(partition);
				}
			}
			this.told.entrySet().removeIf((entry) -> {
				if (held.contains(entry.getKey())) {
					return false;
				}
				resumed.put(entry.getKey(), Duration.ofNanos(now - entry.getValue()));
				return true;
			});
			if (held.isEmpty()) {
				this.carried = false;
			}
			else if (!this.checkPending) {
				// A gate lets its partitions go by itself, as time passes: look again, rather than at the next poll,
				// which may be the container's poll timeout away.
				this.checkPending = true;
				this.outages.schedule(() -> {
					synchronized (this.told) {
						this.checkPending = false;
					}
					sync();
				}, this.probeDelayNanos);
			}
		}
		paused.forEach((partition) -> tell((listener) -> listener.paused(this.listenerId, this.policy, partition)));
		resumed.forEach((partition, duration) -> tell(
				(listener) -> listener.resumed(this.listenerId, this.policy, partition, duration)));
	}

	private void tell(java.util.function.Consumer<KafkaOutageListener> call) {
		this.outages.tell(call);
	}

	@Override
	public String toString() {
		return "KafkaListenerOutage[" + this.listenerId + ", " + this.gate + "]";
	}

	/** Thrown before a record of a held partition reaches the listener: the error handler holds it back. */
	static final class HeldBack extends RuntimeException {

		private final Set<TopicPartition> partitions;

		HeldBack(Set<TopicPartition> partitions) {
			super("Held back by an outage: " + partitions, null, false, false);
			this.partitions = partitions;
		}

		Set<TopicPartition> partitions() {
			return this.partitions;
		}

	}

	static @Nullable HeldBack heldBack(@Nullable Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof HeldBack held) {
				return held;
			}
		}
		return null;
	}

}
