package dev.backoff.sample.contention;

import java.util.concurrent.atomic.LongAdder;

import dev.backoff.Backoff;
import dev.backoff.sample.counters.CounterRow;
import dev.backoff.sample.counters.CounterStore;

import org.springframework.stereotype.Component;

/**
 * One client's increment of a shared counter, the same read-modify-write under four policies
 * that differ only in their jitter ({@code contention-none}, {@code -full}, {@code -equal},
 * {@code -decorrelated}). A policy is chosen per method, so there is one method per jitter;
 * the caller picks among them, through the proxy.
 */
@Component
public class ContentionClients {

	private final CounterStore store;

	public ContentionClients(CounterStore store) {
		this.store = store;
	}

	@Backoff("contention-none")
	public CounterRow incrementWithNoJitter(long id, LongAdder updates) throws InterruptedException {
		return attempt(id, updates);
	}

	@Backoff("contention-full")
	public CounterRow incrementWithFullJitter(long id, LongAdder updates) throws InterruptedException {
		return attempt(id, updates);
	}

	@Backoff("contention-equal")
	public CounterRow incrementWithEqualJitter(long id, LongAdder updates) throws InterruptedException {
		return attempt(id, updates);
	}

	@Backoff("contention-decorrelated")
	public CounterRow incrementWithDecorrelatedJitter(long id, LongAdder updates) throws InterruptedException {
		return attempt(id, updates);
	}

	/**
	 * One attempt: read the row, cross the simulated network, write it back if unchanged.
	 * @param updates counts the UPDATE statements this client sends: the work it costs
	 */
	private CounterRow attempt(long id, LongAdder updates) throws InterruptedException {
		CounterRow read = this.store.read(id);
		this.store.networkLatency();
		updates.increment();
		return this.store.increment(read);
	}

}
