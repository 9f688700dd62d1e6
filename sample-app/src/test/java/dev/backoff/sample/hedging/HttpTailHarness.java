package dev.backoff.sample.hedging;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.HedgeEvent;
import dev.backoff.HedgeTokens;

/**
 * Sends calls to the sample's downstream over real loopback HTTP, each a JDK
 * {@link HttpClient#sendAsync} under {@link BackoffExecutor#executeAsync}, at a fixed rate (an
 * open loop: a slow call does not hold back the next, as users' requests do not wait for each
 * other), with a cap on the calls in flight, and measures each call from when it was due to
 * start to its future's completion: a call held back by the cap counts its wait.
 *
 * <p>Not a closed loop of N callers: there, a call that is slow keeps its caller from sending,
 * so the load on the downstream falls while slow calls wait, and the fast answers of a run
 * without hedging look faster than those of a hedged run, which frees its callers sooner.
 * The task returns the client's own future, so that a losing copy's {@code cancel(true)} aborts
 * its exchange. The calls of a run share one {@link HedgeTokens} with the default share, as a
 * named policy's calls do in Spring: hedges are paid when sent.
 */
public final class HttpTailHarness implements AutoCloseable {

	private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	/** Hedge timers, attempt timeouts and retries: each only starts a request, so one thread is enough. */
	private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "http-tail-scheduler");
		thread.setDaemon(true);
		return thread;
	});

	private final BackoffExecutor executor = BackoffExecutor.builder().build();

	/**
	 * Resets the downstream, sets its tail, and runs the calls.
	 * @param sample the running sample
	 * @param variant the policy of every call
	 * @param calls how many calls
	 * @param ratePerSecond calls started per second
	 * @param maxInFlight how many in flight at most
	 * @param slowRate the downstream's share of slow answers
	 * @param slowDelay how slow
	 * @return what the calls and the downstream saw
	 * @throws InterruptedException if interrupted while waiting for the calls
	 */
	public HttpTailResult run(HttpTailSample sample, HttpTailVariant variant, int calls, double ratePerSecond,
			int maxInFlight, double slowRate, Duration slowDelay) throws InterruptedException {
		sample.resetWithTail(slowRate, slowDelay);
		HttpRequest request = HttpRequest.newBuilder(sample.quote()).build();
		Hedges hedges = new Hedges();
		HedgeTokens hedgeTokens = new HedgeTokens(HedgeTokens.DEFAULT_MAX_EXTRA_LOAD);
		Map<String, LongAdder> failures = new ConcurrentHashMap<>();
		long[] nanos = new long[calls];
		Semaphore inFlight = new Semaphore(maxInFlight);
		CountDownLatch done = new CountDownLatch(calls);
		double interval = 1e9 / ratePerSecond;
		long started = System.nanoTime();
		for (int i = 0; i < calls; i++) {
			long start = started + (long) (i * interval);
			for (long wait = start - System.nanoTime(); wait > 0; wait = start - System.nanoTime()) {
				LockSupport.parkNanos(wait);
			}
			inFlight.acquire();
			int call = i;
			CompletableFuture<HttpResponse<Void>> future = this.executor.executeAsync(
					this.executor.start(variant.policy(), null, hedges, null), null, hedgeTokens,
					() -> this.client.sendAsync(request, BodyHandlers.discarding()), this.scheduler);
			future.whenComplete((response, failure) -> {
				nanos[call] = System.nanoTime() - start;
				String failed = failed(response, failure);
				if (failed != null) {
					failures.computeIfAbsent(failed, (key) -> new LongAdder()).increment();
				}
				inFlight.release();
				done.countDown();
			});
		}
		done.await();
		Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
		HttpTailSample.Stats stats = sample.settledStats();
		return new HttpTailResult(variant.name(), calls, counts(failures), nanos, stats.requests(), stats.slow(),
				hedges.sent.sum(), hedges.won.sum(), hedges.heldBack.sum(), counts(hedges.retries), elapsed);
	}

	private static Map<String, Long> counts(Map<String, LongAdder> adders) {
		Map<String, Long> counts = new TreeMap<>();
		adders.forEach((key, count) -> counts.put(key, count.sum()));
		return counts;
	}

	private static @Nullable String failed(@Nullable HttpResponse<Void> response, @Nullable Throwable failure) {
		if (failure != null) {
			return failure.getClass().getSimpleName();
		}
		if (response == null || response.statusCode() != 200) {
			return "HTTP " + ((response != null) ? response.statusCode() : "none");
		}
		return null;
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

	/** Counts the hedges sent, won and held back, and the retries, over every call of a run. */
	private static final class Hedges implements BackoffListener {

		final LongAdder sent = new LongAdder();

		final LongAdder won = new LongAdder();

		final LongAdder heldBack = new LongAdder();

		/** By the failure retried. */
		final Map<String, LongAdder> retries = new ConcurrentHashMap<>();

		@Override
		public void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
			String reason = (failure != null) ? failure.getClass().getSimpleName() : "result";
			this.retries.computeIfAbsent(reason, (key) -> new LongAdder()).increment();
		}

		@Override
		public void onHedge(HedgeEvent event, int attempt) {
			switch (event) {
				case SENT -> this.sent.increment();
				case WON -> this.won.increment();
				case HELD_BACK -> this.heldBack.increment();
				default -> {
				}
			}
		}

	}

}
