package dev.backoff.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;

/**
 * The scheduler of non-blocking retries ({@code CompletionStage} methods), owned by the
 * application context and configured by {@code backoff.scheduler.*}. On close it stops at
 * once and ends every call still waiting for a retry: each fails with its last original
 * failure and the outcome {@code interrupted}, instead of leaving its caller waiting forever.
 * That is why it is a {@link ScheduledThreadPoolExecutor} of its own rather than Spring's
 * {@code ThreadPoolTaskScheduler}, whose shutdown can only cancel a pending task, never reach
 * the call behind it. A cancelled retry leaves the queue at once. Retries of {@code Mono} and
 * {@code Flux} methods wait on Reactor's scheduler, and end at close through {@link #closing()}.
 */
public class BackoffScheduler extends ScheduledThreadPoolExecutor implements DisposableBean {

	/** The runnable behind each task not yet run nor cancelled, to end its call on shutdown. */
	private final Map<Runnable, Runnable> pending = new ConcurrentHashMap<>();

	private final CompletableFuture<@Nullable Void> closing = new CompletableFuture<>();

	/**
	 * @param poolSize the number of threads, which run the waits' ends and the retried attempts
	 * @param threadFactory makes those threads: platform daemon threads, or virtual ones
	 */
	public BackoffScheduler(int poolSize, ThreadFactory threadFactory) {
		super(poolSize, threadFactory);
		setRemoveOnCancelPolicy(true);
	}

	@Override
	protected <V> RunnableScheduledFuture<V> decorateTask(Runnable runnable, RunnableScheduledFuture<V> task) {
		this.pending.put(task, runnable);
		return task;
	}

	@Override
	protected void afterExecute(Runnable task, @Nullable Throwable failure) {
		this.pending.remove(task);
	}

	@Override
	public boolean remove(Runnable task) {
		// Called as a task is cancelled (the remove-on-cancel policy), and by the executor itself
		// for a task queued just as it shut down: that one would be dropped silently, so its
		// retry runs now and ends its call instead (see AsyncCall).
		Runnable retry = this.pending.remove(task);
		boolean removed = super.remove(task);
		if (retry != null && isShutdown()) {
			retry.run();
		}
		return removed;
	}

	/**
	 * @return completed as the scheduler closes, before anything waiting on it is ended: for
	 * retries that wait elsewhere (Reactor's), so that they end at close too
	 */
	public CompletionStage<@Nullable Void> closing() {
		// A view: whoever stops waiting on it cannot cancel it for everyone else.
		return this.closing.minimalCompletionStage();
	}

	@Override
	public void destroy() throws InterruptedException {
		List<Runnable> queued = shutdownNow();
		this.closing.complete(null);
		for (Runnable task : queued) {
			Runnable retry = this.pending.remove(task);
			if (retry != null) {
				// After shutdown a retry ends its call instead of attempting (see AsyncCall).
				retry.run();
			}
		}
		awaitTermination(10, TimeUnit.SECONDS);
	}

}
