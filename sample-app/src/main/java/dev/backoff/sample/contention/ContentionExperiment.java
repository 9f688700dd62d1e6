package dev.backoff.sample.contention;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import dev.backoff.Jitter;
import dev.backoff.sample.SampleProperties;
import dev.backoff.sample.counters.CounterStore;

import org.springframework.stereotype.Component;

/**
 * Marc Brooker's experiment on the real annotated code: {@code clients} threads, released
 * together, each increment one counter row once under optimistic concurrency control, with each
 * jitter in turn. Counts the work (UPDATE statements), the retries and the time until the last
 * client is done. The row is reset before each jitter, and each run has its own pool of
 * {@code clients} threads, shut down when the run ends. One experiment at a time.
 */
@Component
public class ContentionExperiment {

	/** The counter the clients fight over. */
	public static final long ROW = 2;

	/** The most clients a run accepts: each is a thread. */
	public static final int MAX_CLIENTS = 500;

	private final ContentionClients clients;

	private final CounterStore store;

	private final MeterRegistry registry;

	private final Duration latency;

	private final ReentrantLock running = new ReentrantLock();

	public ContentionExperiment(ContentionClients clients, CounterStore store, MeterRegistry registry,
			SampleProperties properties) {
		this.clients = clients;
		this.store = store;
		this.registry = registry;
		this.latency = properties.getCounters().getLatency();
	}

	/**
	 * Runs the experiment with every jitter.
	 * @param clientCount the number of concurrent clients, 1 to {@value #MAX_CLIENTS}
	 * @return one result per jitter, in the order none, full, equal, decorrelated
	 * @throws IllegalArgumentException if the count is out of range
	 * @throws ExperimentRunningException if an experiment is already running
	 * @throws InterruptedException if interrupted while waiting for the clients
	 */
	public ContentionReport run(int clientCount) throws InterruptedException {
		if (clientCount < 1 || clientCount > MAX_CLIENTS) {
			throw new IllegalArgumentException(
					"clients must be between 1 and " + MAX_CLIENTS + ", but was " + clientCount);
		}
		if (!this.running.tryLock()) {
			throw new ExperimentRunningException();
		}
		try {
			List<ContentionResult> results = new ArrayList<>();
			for (Jitter jitter : Jitter.values()) {
				results.add(run(jitter, clientCount));
			}
			return new ContentionReport(clientCount, this.latency.toMillis() + "ms", results);
		}
		finally {
			this.running.unlock();
		}
	}

	private ContentionResult run(Jitter jitter, int clientCount) throws InterruptedException {
		this.store.reset(ROW);
		String methodTag = "ContentionClients." + methodName(jitter);
		double meteredBefore = meteredRetries(methodTag);
		LongAdder[] updates = new LongAdder[clientCount];
		long[] finishedAt = new long[clientCount];
		CountDownLatch ready = new CountDownLatch(clientCount);
		CountDownLatch go = new CountDownLatch(1);
		List<Future<Boolean>> outcomes = new ArrayList<>(clientCount);
		ExecutorService pool = Executors.newFixedThreadPool(clientCount, threads(jitter));
		long start;
		try {
			for (int i = 0; i < clientCount; i++) {
				int client = i;
				updates[client] = new LongAdder();
				outcomes.add(pool.submit(() -> {
					ready.countDown();
					go.await();
					try {
						increment(jitter, updates[client]);
						return true;
					}
					catch (RuntimeException ex) {
						return false;
					}
					finally {
						finishedAt[client] = System.nanoTime();
					}
				}));
			}
			// Release every client at once, as in the article: they all collide on the first try.
			ready.await();
			start = System.nanoTime();
			go.countDown();
			pool.shutdown();
			int succeeded = 0;
			for (Future<Boolean> outcome : outcomes) {
				if (Boolean.TRUE.equals(outcome.get())) {
					succeeded++;
				}
			}
			return result(jitter, clientCount, succeeded, updates, finishedAt, start, methodTag, meteredBefore);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("A contention client failed unexpectedly", ex.getCause());
		}
		finally {
			pool.shutdownNow();
			pool.awaitTermination(1, TimeUnit.MINUTES);
		}
	}

	private ContentionResult result(Jitter jitter, int clientCount, int succeeded, LongAdder[] updates,
			long[] finishedAt, long start, String methodTag, double meteredBefore) {
		long attempts = 0;
		long mostAttempts = 0;
		long lastFinish = start;
		for (int i = 0; i < clientCount; i++) {
			long clientAttempts = updates[i].sum();
			attempts += clientAttempts;
			mostAttempts = Math.max(mostAttempts, clientAttempts);
			lastFinish = Math.max(lastFinish, finishedAt[i]);
		}
		long meteredRetries = Math.round(meteredRetries(methodTag) - meteredBefore);
		return new ContentionResult(jitter.name().toLowerCase(Locale.ROOT), policyName(jitter), clientCount, succeeded,
				clientCount - succeeded, attempts, attempts - clientCount, meteredRetries, mostAttempts,
				TimeUnit.NANOSECONDS.toMillis(lastFinish - start), this.store.read(ROW).total());
	}

	private void increment(Jitter jitter, LongAdder updates) throws InterruptedException {
		switch (jitter) {
			case NONE -> this.clients.incrementWithNoJitter(ROW, updates);
			case FULL -> this.clients.incrementWithFullJitter(ROW, updates);
			case EQUAL -> this.clients.incrementWithEqualJitter(ROW, updates);
			case DECORRELATED -> this.clients.incrementWithDecorrelatedJitter(ROW, updates);
		}
	}

	private static String methodName(Jitter jitter) {
		return switch (jitter) {
			case NONE -> "incrementWithNoJitter";
			case FULL -> "incrementWithFullJitter";
			case EQUAL -> "incrementWithEqualJitter";
			case DECORRELATED -> "incrementWithDecorrelatedJitter";
		};
	}

	static String policyName(Jitter jitter) {
		return "contention-" + jitter.name().toLowerCase(Locale.ROOT);
	}

	private double meteredRetries(String methodTag) {
		double total = 0;
		for (Counter counter : this.registry.find("backoff.retries").tag("method", methodTag).counters()) {
			total += counter.count();
		}
		return total;
	}

	private static ThreadFactory threads(Jitter jitter) {
		AtomicInteger number = new AtomicInteger();
		String prefix = "contention-" + jitter.name().toLowerCase(Locale.ROOT) + "-";
		return (task) -> {
			Thread thread = new Thread(task, prefix + number.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

}
