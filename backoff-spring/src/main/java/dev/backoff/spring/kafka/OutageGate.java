package dev.backoff.spring.kafka;

import java.time.Duration;
import java.util.LinkedHashSet;
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
 * <li><b>Probe.</b> Then one record of one held partition may be delivered: the first
 * {@link #mayDeliver} asked. Its failure pauses again, longer; its success starts the ramp.</li>
 * <li><b>Ramp.</b> The held partitions' records are let through at a paced rate, not all at
 * once, which would meet a recovering downstream with every partition's backlog: the rate
 * starts at one partition's pace (one record per probe's round trip) and grows like TCP's slow
 * start, doubling every {@code probeDelay} while it is what limits the listener, then by
 * {@link #RAMP_STEP} of itself per {@code probeDelay} after the first failure, which cuts it to
 * {@link #RAMP_BACK_OFF} of itself. Too many failures (the rate below one record per
 * {@code probeDelay}) pause again. Once the rate has not held a record back for
 * {@link #RAMP_QUIET} {@code probeDelay}s, the partitions are released and the outage is over.</li>
 * </ol>
 * Each instance of an application has its own gate per listener and its own random source, so
 * the instances of a group do not resume in step. After calling {@link #succeeded},
 * {@link #failed} or {@link #refused}, ask {@link #nanosUntilNextChange()} again: the outcome
 * of a probe changes it.
 *
 * @param <P> the type of a partition
 */
public final class OutageGate<P> {

	/** The rate's growth per {@code probeDelay} after its first cut: a fifth. */
	static final double RAMP_STEP = 0.2;

	/** What is left of the rate after a failed delivery while ramping. */
	static final double RAMP_BACK_OFF = 0.7;

	/** The {@code probeDelay}s without a record held back after which the ramp is over. */
	static final int RAMP_QUIET = 5;

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

	/** While ramping: records per second, the tokens in hand (at most one) and when they were counted. */
	private double rate;

	private double tokens;

	private long refilledNanos;

	private boolean slowStart;

	/** While ramping: when a record was last held back by the rate, and when it was last cut. */
	private long heldBackNanos;

	private long cutNanos;

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
			case RAMPING -> cut(now);
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
				if (this.held.contains(partition)) {
					grow(now);
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
			cut(now);
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
				if (now - this.nextProbeNanos >= 0) {
					sendProbe(partition, now);
					return true;
				}
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
				if (!refill(now)) {
					return true;
				}
				if (this.tokens >= 1) {
					this.tokens -= 1;
					return true;
				}
				this.heldBackNanos = now;
				return false;
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
			case PAUSED -> Math.max(0, this.nextProbeNanos - now);
			case PROBING -> Math.max(0, this.probeSentNanos + this.maxPauseNanos - now);
			case RAMPING -> {
				if (!refill(now)) {
					yield -1;
				}
				yield (this.tokens >= 1) ? 0 : (long) Math.ceil((1 - this.tokens) / this.rate * 1e9);
			}
		};
	}

	/** @return the partitions held now */
	public synchronized Set<P> held() {
		if (this.phase == Phase.RAMPING) {
			refill(this.clock.nanoTime());
		}
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
		if (this.held.isEmpty()) {
			end();
		}
		else if (this.phase == Phase.PROBING && partition.equals(this.probe)) {
			this.probe = null;
			this.phase = Phase.PAUSED;
			this.nextProbeNanos = this.clock.nanoTime();
		}
	}

	/** @return whether partitions are held: paused, probing or ramping */
	public synchronized boolean inOutage() {
		if (this.phase == Phase.RAMPING) {
			refill(this.clock.nanoTime());
		}
		return this.phase != Phase.OPEN;
	}

	/** @return the clock's nanos when the current outage started; valid when {@link #inOutage()} */
	public synchronized long outageStartNanos() {
		return this.outageStartNanos;
	}

	@Override
	public synchronized String toString() {
		return "OutageGate[" + this.phase + ", held " + this.held.size()
				+ ((this.phase == Phase.RAMPING) ? String.format(java.util.Locale.ROOT, ", %.1f/s", this.rate) : "")
				+ "]";
	}

	/** Pauses until the next probe; {@code fresh}: the pauses start over from {@code probeDelay}. */
	private void pause(long now, boolean fresh) {
		BackoffDelays delays = this.pauseDelays;
		if (fresh || delays == null) {
			delays = this.pauses.delays(this.random.generator());
			this.pauseDelays = delays;
		}
		this.phase = Phase.PAUSED;
		this.probe = null;
		this.nextProbeNanos = now + delays.nextNanos();
	}

	private void sendProbe(P partition, long now) {
		this.phase = Phase.PROBING;
		this.probe = partition;
		this.probeSentNanos = now;
	}

	private void startRamp(long now) {
		// One partition's pace: a record per round trip of the probe.
		long roundTrip = Math.max(1, now - this.probeSentNanos);
		this.phase = Phase.RAMPING;
		this.probe = null;
		this.rate = Math.max(1e9 / this.probeDelayNanos, Math.min(1e9 / roundTrip, 1e9 / 1_000_000.0));
		this.tokens = 1;
		this.refilledNanos = now;
		this.slowStart = true;
		this.heldBackNanos = now;
		this.cutNanos = now - this.probeDelayNanos;
	}

	/** Counts the tokens earned since the last call; ends the ramp when it has held nothing back for a while. */
	private boolean refill(long now) {
		this.tokens = Math.min(1, this.tokens + (now - this.refilledNanos) / 1e9 * this.rate);
		this.refilledNanos = now;
		if (now - this.heldBackNanos >= RAMP_QUIET * this.probeDelayNanos) {
			end();
			return false;
		}
		return true;
	}

	/** A success while ramping: the rate grows, but only while it is what holds records back. */
	private void grow(long now) {
		if (!refill(now) || now - this.heldBackNanos > this.probeDelayNanos) {
			return;
		}
		double perProbeDelay = this.slowStart ? Math.log(2) : Math.log1p(RAMP_STEP);
		// A success comes every 1/rate seconds, so this grows the rate by e^(perProbeDelay) per probeDelay.
		this.rate += perProbeDelay * 1e9 / this.probeDelayNanos;
	}

	/** A failure while ramping: one cut per round trip of the current rate's records, at most. */
	private void cut(long now) {
		if (!refill(now)) {
			return;
		}
		this.slowStart = false;
		if (now - this.cutNanos < this.probeDelayNanos / 10) {
			return;
		}
		this.cutNanos = now;
		this.rate *= RAMP_BACK_OFF;
		if (this.rate < 1e9 / this.probeDelayNanos) {
			pause(now, true);
		}
	}

	private void end() {
		this.phase = Phase.OPEN;
		this.held.clear();
		this.probe = null;
		this.pauseDelays = null;
	}

}
