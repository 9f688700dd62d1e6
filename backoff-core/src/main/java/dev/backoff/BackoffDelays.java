package dev.backoff;

import java.time.Duration;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The waits of one call under a {@link BackoffSchedule}: one per retry, {@code maxAttempts − 1}
 * in all, computed lazily as they are asked for. This is the one place where a schedule turns
 * into waits; the executor, the Actuator preview and the simulations all consume it.
 *
 * <p>Each sequence is independent and belongs to one call: it holds the state of
 * {@link Jitter#DECORRELATED} and its own random generator. Not thread-safe. Obtain one from
 * {@link BackoffSchedule#delays()}.
 */
public final class BackoffDelays implements Iterator<Duration> {

	private final BackoffSchedule schedule;

	private final RandomGenerator random;

	private final int retries;

	private int retry;

	private long previous;

	BackoffDelays(BackoffSchedule schedule, RandomGenerator random) {
		this.schedule = schedule;
		this.random = random;
		this.retries = schedule.getMaxRetries();
		this.previous = schedule.baseDelayNanos();
	}

	/** @return whether another retry is allowed */
	@Override
	public boolean hasNext() {
		return this.retry < this.retries;
	}

	/**
	 * @return the wait before the next retry
	 * @throws NoSuchElementException when every retry has been used
	 */
	@Override
	public Duration next() {
		return Duration.ofNanos(nextNanos());
	}

	/**
	 * The wait before the next retry in nanoseconds, without allocating.
	 * @return a delay in {@code [0, maxDelay]}
	 * @throws NoSuchElementException when every retry has been used
	 */
	public long nextNanos() {
		return nextNanos(false);
	}

	/**
	 * The wait before the next retry in nanoseconds, drawn from the schedule's
	 * {@link BackoffSchedule#getThrottling() throttling schedule} when the failure before it
	 * was classified as throttling and there is one; retries are counted across both.
	 * @param throttled whether the failure before this retry was throttling
	 * @return a delay in {@code [0, maxDelay]} of the schedule it is drawn from
	 * @throws NoSuchElementException when every retry has been used
	 */
	public long nextNanos(boolean throttled) {
		if (this.retry >= this.retries) {
			throw new NoSuchElementException("All " + this.retries + " retries of BackoffSchedule[" + this.schedule + "] have been used");
		}
		this.retry++;
		BackoffSchedule throttling = throttled ? this.schedule.getThrottling() : null;
		BackoffSchedule from = (throttling != null) ? throttling : this.schedule;
		// The schedule's own formula, not a running product: repeated multiplication drifts from
		// baseDelay × multiplier^(n−1) by a nanosecond within a few retries (1.2 from 100ms: at the 4th).
		long ceilingNanos = from.ceilingNanos(this.retry);
		long delay = from.getJitter()
			.delayNanos(ceilingNanos, this.previous, from.baseDelayNanos(), from.maxDelayNanos(), this.random);
		this.previous = delay;
		return delay;
	}

	/** @return the number of the retry that the last delay was for; 0 before the first */
	public int retry() {
		return this.retry;
	}

	/** @return the remaining delays as a lazy, ordered stream that advances this sequence */
	public Stream<Duration> stream() {
		int characteristics = Spliterator.ORDERED | Spliterator.NONNULL;
		Spliterator<Duration> spliterator = (this.retries == Integer.MAX_VALUE - 1)
				? Spliterators.spliteratorUnknownSize(this, characteristics)
				: Spliterators.spliterator(this, (long) this.retries - this.retry, characteristics);
		return StreamSupport.stream(spliterator, false);
	}

}
