package dev.backoff.sample.counters;

import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;

import org.springframework.stereotype.Service;

/**
 * Increments a counter under optimistic concurrency control, retried under the
 * {@code optimistic} policy: each attempt re-reads the row and its version, so a retry is a
 * fresh read-modify-write, not a replay of a stale one.
 */
@Service
public class CounterService {

	private final CounterStore store;

	private final AtomicInteger rivalsNext = new AtomicInteger();

	public CounterService(CounterStore store) {
		this.store = store;
	}

	/**
	 * @param id the counter's id
	 * @return the row as written
	 * @throws OptimisticConflictException if every attempt lost the race
	 * @throws UnknownCounterException at once, if there is no such counter
	 * @throws InterruptedException if interrupted during the simulated network wait
	 */
	@Backoff("optimistic")
	public CounterRow increment(long id) throws InterruptedException {
		CounterRow read = this.store.read(id);
		this.store.networkLatency();
		if (this.rivalsNext.getAndUpdate((n) -> (n > 0) ? n - 1 : 0) > 0) {
			this.store.rivalIncrement(id);
		}
		return this.store.increment(read);
	}

	/**
	 * Makes the next {@code count} attempts (of any counter) meet a rival writer that commits
	 * between their read and their write, so that they conflict.
	 * @param count the number of attempts to spoil, zero or more
	 * @return the number now pending
	 */
	public int conflictNext(int count) {
		if (count < 0) {
			throw new IllegalArgumentException("conflictNext must not be negative, but was " + count);
		}
		this.rivalsNext.set(count);
		return count;
	}

}
