package dev.backoff.spring.kafka;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

import dev.backoff.BackoffDelays;
import dev.backoff.BackoffPolicy;
import dev.backoff.BackoffSchedule;
import dev.backoff.Jitter;
import dev.backoff.NanoClock;
import dev.backoff.RandomSource;
import org.jspecify.annotations.Nullable;

/**
 * One listener's partitions in an outage of their policy, decided without Kafka: thread-safe,
 * on an injected {@link NanoClock} and {@link RandomSource}. {@code P} is a partition
 * ({@code TopicPartition} in Kafka, an {@code int} in the simulation).
 *
 * <p>An outage starts when the policy's budget refuses a retry ({@link #refused}): that
 * partition is held (paused, its record not recovered) and so is every partition refused after
 * it. Then, in turn:
 * <ol>
 * <li><b>Pause.</b> Nothing is delivered for a pause drawn with {@link Jitter#DECORRELATED
 * decorrelated jitter}, Backoff's own formula, from {@code probeDelay} up to {@code maxPause},
 * growing with each failed probe.</li>
 * <li><b>Probe.</b> Then one record of one held partition may be delivered: of the partition
 * first in line, or of any held partition once the first has let {@code probeDelay} pass
 * without asking. Its failure pauses again, longer, and sends its partition to the back of the
 * line, so that a poison record alone cannot keep the outage on; its success starts the ramp.</li>
 * <li><b>Ramp.</b> The held partitions' records are let through at a paced rate, not all at
 * once, which would meet a recovering downstream with every partition's backlog: from one
 * partition's pace, growing while nothing fails, cut by failures, fair among the partitions
 * ({@link OutageRamp}). Too many failures pause again; once the rate no longer holds records
 * back, the partitions are released and the outage is over.</li>
 * </ol>
 * Each instance of an application has its own gate per listener and its own random source, so
 * the instances of a group do not resume in step. After calling {@link #succeeded},
 * {@link #failed} or {@link #refused}, ask {@link #nanosUntilNextChange()} again: the outcome
 * of a probe changes it.
 *
 * @param <P> the type of a partition
 */
public final class OutageGate<P> {

	private enum Phase {

		/** No outage. */
		OPEN,

		/** Held, until the next probe. */
		PAUSED,

		/** One record of a held partition delivered, its outcome awaited. */
		PROBING,

		/** Held partitions delivered at a paced rate. */
		RAMPING

	}

	private final long probeDelayNanos;

	private final long maxPauseNanos;

	private final NanoClock clock;

	private final RandomSource random;

	private final BackoffSchedule pauses;

	private final Set<P> held = new LinkedHashSet<>();

	private Phase phase = Phase.OPEN;

	private @Nullable BackoffDelays pauseDelays;

	private long outageStartNanos;

	private long nextProbeNanos;

	private @Nullable P probe;

	private long probeSentNanos;

	/** Whether a partition was refused the due probe because it was not first in line. */
	private boolean waitingForFirst;

	private @Nullable OutageRamp<P> ramp;

	/**
	 * @param probeDelay the first pause, at least 1 ms
	 * @param maxPause the longest pause, at least {@code probeDelay}
	 * @param clock the time of the pauses and the ramp
	 * @param random the source of the pauses' jitter: this instance's own
	 */
	public OutageGate(Duration probeDelay, Duration maxPause, NanoClock clock, RandomSource random) {
		Objects.requireNonNull(probeDelay, "probeDelay must not be null");
		Objects.requireNonNull(maxPause, "maxPause must not be null");
		if (probeDelay.compareTo(Duration.ofMillis(1)) < 0) {
			throw new IllegalArgumentException("probeDelay " + probeDelay + " must be at least 1ms");
		}
		if (maxPause.compareTo(probeDelay) < 0) {
			throw new IllegalArgumentException(
					"maxPause " + maxPause + " must be at least probeDelay (" + probeDelay + ")");
		}
		this.probeDelayNanos = probeDelay.toNanos();
		this.maxPauseNanos = maxPause.toNanos();
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
		this.random = Objects.requireNonNull(random, "random must not be null");
		this.pauses = BackoffPolicy.builder()
			.maxAttempts(Integer.MAX_VALUE)
			.baseDelay(probeDelay)
			.maxDelay(maxPause)
			.jitter(Jitter.DECORRELATED)
			.build()
			.getSchedule();
	}

	/**
	 * The budget refused a retry of a record of this partition: it is held (paused) from now,
	 * and an outage starts if none is on.
	 * @param partition the record's partition
	 */
	public synchronized void refused(P partition) {
		long now = this.clock.nanoTime();
		this.held.add(partition);
		switch (this.phase) {
			case OPEN -> {
				this.outageStartNanos = now;
				pause(now, true);
			}
			case PROBING -> {
				if (partition.equals(this.probe)) {
					pause(now, false);
				}
			}
			case RAMPING -> failedRamping(now);
			case PAUSED -> {
			}
		}
	}

	/**
	 * A record of this partition succeeded: a probe, or any delivery.
	 * @param partition the record's partition
	 */
	public synchronized void succeeded(P partition) {
		long now = this.clock.nanoTime();
		switch (this.phase) {
			case PROBING -> {
				if (this.held.contains(partition)) {
					startRamp(now);
				}
			}
			case PAUSED -> {
				// The downstream answers someone: no need to wait the whole pause to try it.
				this.nextProbeNanos = Math.min(this.nextProbeNanos, now);
			}
			case RAMPING -> {
				if (this.held.contains(partition) && ramping(now)) {
					ramp().succeeded(now);
				}
			}
			case OPEN -> {
			}
		}
	}

	/**
	 * A delivery of a held partition failed (a failed probe, or a failure while ramping): pause
	 * again, longer, or slow the ramp down. A failure of a partition that is not held is the
	 * policy's business (its retries and budget), not the gate's.
	 * @param partition the record's partition
	 */
	public synchronized void failed(P partition) {
		if (!this.held.contains(partition)) {
			return;
		}
		long now = this.clock.nanoTime();
		if (this.phase == Phase.PROBING) {
			pause(now, false);
		}
		else if (this.phase == Phase.RAMPING) {
			failedRamping(now);
		}
	}

	/**
	 * Whether a record of this partition may be delivered now; {@code false}: keep it paused,
	 * and ask again after {@link #nanosUntilNextChange()}. A partition that is not held always
	 * may; a held one may for the probe, then while ramping as the rate allows. Each
	 * {@code true} for a held partition is one record's delivery: ask once per record.
	 * @param partition the record's partition
	 * @return whether to deliver the record
	 */
	public synchronized boolean mayDeliver(P partition) {
		if (!this.held.contains(partition)) {
			return true;
		}
		long now = this.clock.nanoTime();
		switch (this.phase) {
			case PAUSED -> {
				long late = now - this.nextProbeNanos;
				if (late >= 0 && (partition.equals(this.held.iterator().next()) || late >= this.probeDelayNanos)) {
					sendProbe(partition, now);
					return true;
				}
				this.waitingForFirst |= late >= 0;
				return false;
			}
			case PROBING -> {
				// A probe whose outcome never came (its record revoked, say) is lost: another may go.
				if (now - this.probeSentNanos >= this.maxPauseNanos) {
					sendProbe(partition, now);
					return true;
				}
				return false;
			}
			case RAMPING -> {
				return !ramping(now) || ramp().mayDeliver(partition, now);
			}
			default -> {
				return true;
			}
		}
	}

	/**
	 * @return the nanoseconds after which {@link #mayDeliver} may answer otherwise (0: now); -1
	 * when nothing is held
	 */
	public synchronized long nanosUntilNextChange() {
		long now = this.clock.nanoTime();
		return switch (this.phase) {
			case OPEN -> -1;
			case PAUSED -> (now - this.nextProbeNanos < 0) ? this.nextProbeNanos - now
					: this.waitingForFirst ? Math.max(0, this.nextProbeNanos + this.probeDelayNanos - now) : 0;
			case PROBING -> Math.max(0, this.probeSentNanos + this.maxPauseNanos - now);
			case RAMPING -> ramping(now) ? ramp().nanosUntilToken(now) : -1;
		};
	}

	/**
	 * @param partition a partition
	 * @return whether it is held now: whether its next delivery's failure is the gate's ({@link #failed})
	 */
	public synchronized boolean isHeld(P partition) {
		ramping(this.clock.nanoTime());
		return this.held.contains(partition);
	}

	/** @return the partitions held now */
	public synchronized Set<P> held() {
		ramping(this.clock.nanoTime());
		return Set.copyOf(this.held);
	}

	/**
	 * The partition was revoked by a rebalance: forget it. A probe on it is lost, so another
	 * partition may probe at once.
	 * @param partition the revoked partition
	 */
	public synchronized void forget(P partition) {
		if (!this.held.remove(partition)) {
			return;
		}
		if (this.ramp != null) {
			this.ramp.forget(partition);
		}
		if (this.held.isEmpty()) {
			end();
		}
		else if (this.phase == Phase.PROBING && partition.equals(this.probe)) {
			this.probe = null;
			this.phase = Phase.PAUSED;
			this.waitingForFirst = false;
			this.nextProbeNanos = this.clock.nanoTime();
		}
	}

	/** @return whether partitions are held: paused, probing or ramping */
	public synchronized boolean inOutage() {
		ramping(this.clock.nanoTime());
		return this.phase != Phase.OPEN;
	}

	/** @return the clock's nanos when the current outage started; valid when {@link #inOutage()} */
	public synchronized long outageStartNanos() {
		return this.outageStartNanos;
	}

	@Override
	public synchronized String toString() {
		return "OutageGate[" + this.phase + ", held " + this.held.size()
				+ ((this.ramp != null) ? String.format(Locale.ROOT, ", %.1f/s", this.ramp.rate()) : "")
				+ "]";
	}

	/** Pauses until the next probe; {@code fresh}: the pauses start over from {@code probeDelay}. */
	private void pause(long now, boolean fresh) {
		BackoffDelays delays = this.pauseDelays;
		if (fresh || delays == null) {
			delays = this.pauses.delays(this.random.generator());
			this.pauseDelays = delays;
		}
		P failedProbe = this.probe;
		if (failedProbe != null && this.held.remove(failedProbe)) {
			// To the back of the line: a poison record must not be the only probe of an outage.
			this.held.add(failedProbe);
		}
		this.phase = Phase.PAUSED;
		this.probe = null;
		this.waitingForFirst = false;
		this.ramp = null;
		this.nextProbeNanos = now + delays.nextNanos();
	}

	private void sendProbe(P partition, long now) {
		this.phase = Phase.PROBING;
		this.probe = partition;
		this.probeSentNanos = now;
	}

	private void startRamp(long now) {
		this.phase = Phase.RAMPING;
		this.probe = null;
		this.ramp = new OutageRamp<>(this.probeDelayNanos, now - this.probeSentNanos, now);
	}

	private OutageRamp<P> ramp() {
		return Objects.requireNonNull(this.ramp);
	}

	/** Whether the ramp is still on; ends the outage when it is over. */
	private boolean ramping(long now) {
		if (this.phase == Phase.RAMPING && ramp().isOver(now)) {
			end();
		}
		return this.phase == Phase.RAMPING;
	}

	private void failedRamping(long now) {
		if (ramping(now) && !ramp().failed(now)) {
			pause(now, true);
		}
	}

	private void end() {
		this.phase = Phase.OPEN;
		this.ramp = null;
		this.held.clear();
		this.probe = null;
		this.pauseDelays = null;
	}

}
