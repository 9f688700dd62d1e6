package dev.backoff.sample.counters;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.backoff.sample.SampleProperties;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The {@code counter} table, read and written under optimistic concurrency control: every
 * statement is its own transaction, as a remote client's would be, and a write succeeds only
 * if the row still has the version that was read.
 */
@Repository
public class CounterStore {

	private final JdbcClient jdbc;

	private final Duration latency;

	public CounterStore(JdbcClient jdbc, SampleProperties properties) {
		this.jdbc = jdbc;
		this.latency = properties.getCounters().getLatency();
	}

	/**
	 * @param id the counter's id
	 * @return its row as of now
	 * @throws UnknownCounterException if there is no such counter
	 */
	public CounterRow read(long id) {
		return this.jdbc.sql("SELECT id, total, version FROM counter WHERE id = ?")
			.param(id)
			.query(CounterRow.class)
			.optional()
			.orElseThrow(() -> new UnknownCounterException(id));
	}

	/**
	 * Writes {@code read.total + 1} back, if nobody wrote the row since it was read.
	 * @param read the row as read
	 * @return the row as written
	 * @throws OptimisticConflictException if the row's version changed since it was read
	 */
	public CounterRow increment(CounterRow read) {
		int updated = this.jdbc.sql("UPDATE counter SET total = ?, version = version + 1 WHERE id = ? AND version = ?")
			.params(read.total() + 1, read.id(), read.version())
			.update();
		if (updated == 0) {
			throw new OptimisticConflictException(read.id(), read.version());
		}
		return new CounterRow(read.id(), read.total() + 1, read.version() + 1);
	}

	/**
	 * Another writer's increment, committed unconditionally: injected between a client's read
	 * and its write to make that write conflict.
	 * @param id the counter's id
	 */
	public void rivalIncrement(long id) {
		this.jdbc.sql("UPDATE counter SET total = total + 1, version = version + 1 WHERE id = ?").param(id).update();
	}

	/**
	 * @param id the counter's id
	 * @throws UnknownCounterException if there is no such counter
	 */
	public void reset(long id) {
		if (this.jdbc.sql("UPDATE counter SET total = 0, version = 0 WHERE id = ?").param(id).update() == 0) {
			throw new UnknownCounterException(id);
		}
	}

	/**
	 * Waits the simulated network time between a client's read and its write
	 * ({@code sample.counters.latency}): the window in which another client can commit first.
	 * @throws InterruptedException if interrupted while waiting
	 */
	public void networkLatency() throws InterruptedException {
		if (!this.latency.isZero()) {
			TimeUnit.NANOSECONDS.sleep(this.latency.toNanos());
		}
	}

}
