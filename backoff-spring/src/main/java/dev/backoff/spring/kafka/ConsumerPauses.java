package dev.backoff.spring.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.backoff.NanoClock;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * Backoff's pauses of one listener's partitions, on each of its consumers (one per child
 * container), applied on the consumer's own thread just before each poll, as its
 * {@link OutageGate} decides. They are never recorded as the container's: the application's
 * {@code pause()}, {@code pausePartition} and their resumes leave them alone (a resume that
 * lifts one is undone before the next poll), and a partition the application wants paused is
 * never resumed here. A consumer whose partitions are all paused would block in its poll for
 * the container's poll timeout (5s by default), so it is woken when the gate's next change is due.
 */
final class ConsumerPauses {

	private final MessageListenerContainer container;

	private final OutageGate<TopicPartition> gate;

	private final KafkaOutages outages;

	private final NanoClock clock;

	private final boolean batch;

	/** The partitions paused by Backoff, per consumer. */
	private final Map<Consumer<?, ?>, Set<TopicPartition>> paused = new IdentityHashMap<>();

	/** A wake of the consumers is scheduled, at this time: guarded by {@link #paused}. */
	private boolean wakePending;

	private long wakeAt;

	/** The time the gate gave for its next change has not come yet, at this time: guarded by {@link #paused}. */
	private boolean resumePending;

	private long resumeAt;

	ConsumerPauses(MessageListenerContainer container, OutageGate<TopicPartition> gate, KafkaOutages outages,
			NanoClock clock) {
		this.container = container;
		this.batch = container.getContainerProperties().getMessageListener() instanceof BatchMessageListener<?, ?>;
		this.gate = gate;
		this.outages = outages;
		this.clock = clock;
	}

	/** Pauses the partition on this consumer, as Backoff's pause; on the consumer's thread. */
	void pause(Consumer<?, ?> consumer, TopicPartition partition) {
		synchronized (this.paused) {
			this.paused.computeIfAbsent(consumer, (key) -> new HashSet<>()).add(partition);
		}
		consumer.pause(List.of(partition));
	}

	/** @return whether Backoff paused none of this consumer's partitions */
	boolean hasNone(Consumer<?, ?> consumer) {
		synchronized (this.paused) {
			return !this.paused.containsKey(consumer);
		}
	}

	/**
	 * Just before the consumer polls, on its thread: pauses the held partitions that someone
	 * resumed, and resumes those the gate lets go, or those whose probe or paced record is due;
	 * never one the application paused.
	 */
	void beforePoll(Consumer<?, ?> consumer) {
		Set<TopicPartition> ours;
		synchronized (this.paused) {
			ours = this.paused.get(consumer);
			ours = (ours != null) ? new HashSet<>(ours) : Set.of();
		}
		Set<TopicPartition> held = this.gate.held();
		long now = this.clock.nanoTime();
		long change = this.gate.nanosUntilNextChange();
		boolean due;
		synchronized (this.paused) {
			// Due when the gate says now, or once the time it gave has come: while it paces a ramp it keeps the
			// next record for the partition that waited longest, and names no time for the others.
			due = change == 0 || (this.resumePending && now - this.resumeAt >= 0);
			if (!due && change > 0 && !this.resumePending) {
				this.resumePending = true;
				this.resumeAt = now + change;
			}
		}
		Set<TopicPartition> assigned = consumer.assignment();
		Set<TopicPartition> pausedNow = consumer.paused();
		List<TopicPartition> toPause = new ArrayList<>();
		List<TopicPartition> toResume = new ArrayList<>();
		for (TopicPartition partition : ours) {
			if (!assigned.contains(partition)) {
				release(consumer, partition);
			}
			else if (!held.contains(partition) || due) {
				// The gate picks the probe among the records polled. A batch asks for each of its partitions at
				// once, so a batch listener's are resumed one at a time: a batch then holds at most one probe.
				due = due && !this.batch;
				if (!applicationPaused(partition)) {
					toResume.add(partition);
					release(consumer, partition);
				}
			}
			else if (!pausedNow.contains(partition)) {
				toPause.add(partition);
			}
		}
		if (!toPause.isEmpty()) {
			consumer.pause(toPause);
		}
		if (!toResume.isEmpty()) {
			consumer.resume(toResume);
			synchronized (this.paused) {
				this.resumePending = false;
			}
		}
		long next = this.gate.nanosUntilNextChange();
		if (next > 0) {
			wakeIn(next);
		}
	}

	/**
	 * Wakes the consumers from their poll when the gate's next change is due: a poll with
	 * nothing to fetch blocks for the container's poll timeout (5s by default), longer than a
	 * probe's pause.
	 */
	void wakeIn(long nanos) {
		long at = this.clock.nanoTime() + nanos;
		synchronized (this.paused) {
			if (this.wakePending && this.wakeAt - at <= 0) {
				return;
			}
			this.wakePending = true;
			this.wakeAt = at;
		}
		this.outages.schedule(this::wake, nanos);
	}

	private void wake() {
		synchronized (this.paused) {
			if (this.clock.nanoTime() - this.wakeAt < 0) {
				return;
			}
			this.wakePending = false;
		}
		// Ours, not only the held ones: a ramp ends by itself, and its paused partitions are then resumed.
		Set<TopicPartition> ours = new HashSet<>();
		synchronized (this.paused) {
			this.paused.values().forEach(ours::addAll);
		}
		List<MessageListenerContainer> containers = (this.container instanceof ConcurrentMessageListenerContainer<?, ?> concurrent)
				? new ArrayList<>(concurrent.getContainers()) : List.of(this.container);
		for (MessageListenerContainer child : containers) {
			Collection<TopicPartition> assigned = child.getAssignedPartitions();
			TopicPartition partition = (assigned != null)
					? ours.stream().filter(assigned::contains).findFirst().orElse(null) : null;
			if (partition != null && !child.isPartitionPauseRequested(partition)) {
				// A partition the application did not pause: its resume changes nothing but wakes the poll.
				child.resumePartition(partition);
			}
		}
	}

	void release(Consumer<?, ?> consumer, TopicPartition partition) {
		synchronized (this.paused) {
			Set<TopicPartition> ours = this.paused.get(consumer);
			if (ours != null && ours.remove(partition) && ours.isEmpty()) {
				this.paused.remove(consumer);
			}
		}
	}

	/** Whether the application asked its container, or the child that has the partition, to pause it. */
	private boolean applicationPaused(TopicPartition partition) {
		if (this.container.isPauseRequested() || this.container.isPartitionPauseRequested(partition)) {
			return true;
		}
		if (this.container instanceof ConcurrentMessageListenerContainer<?, ?> concurrent) {
			for (MessageListenerContainer child : concurrent.getContainers()) {
				if (child.isPartitionPauseRequested(partition) || (child.isPauseRequested()
						&& child.getAssignedPartitions() != null && child.getAssignedPartitions().contains(partition))) {
					return true;
				}
			}
		}
		return false;
	}

}
