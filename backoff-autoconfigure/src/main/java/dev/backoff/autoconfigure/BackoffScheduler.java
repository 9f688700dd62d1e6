package dev.backoff.autoconfigure;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.springframework.beans.factory.DisposableBean;

/**
 * The scheduler of non-blocking retries ({@code CompletionStage} methods), owned by the
 * application context and configured by {@code backoff.scheduler.*}. On close it stops at
 * once and ends every call still waiting for a retry: each fails with its last original
 * failure and the outcome {@code interrupted}, instead of leaving its caller waiting forever.
 * That is why it is a {@link ScheduledThreadPoolExecutor} of its own rather than Spring's
 * {@code ThreadPoolTaskScheduler}, whose shutdown can only cancel a pending task, never reach
 * the call behind it.
 */
public class BackoffScheduler extends ScheduledThreadPoolExecutor implements DisposableBean {

	/**
	 * @param poolSize the number of threads, which run the waits' ends and the retried attempts
	 * @param threadFactory makes those threads: platform daemon threads, or virtual ones
	 */
	public BackoffScheduler(int poolSize, ThreadFactory threadFactory) {
		super(poolSize, threadFactory);
	}

	@Override
	protected <V> RunnableScheduledFuture<V> decorateTask(Runnable runnable, RunnableScheduledFuture<V> task) {
		return new Task<>(runnable, task);
	}

	@Override
	protected <V> RunnableScheduledFuture<V> decorateTask(Callable<V> callable, RunnableScheduledFuture<V> task) {
		return task;
	}

	@Override
	public void destroy() throws InterruptedException {
		List<Runnable> pending = shutdownNow();
		for (Runnable runnable : pending) {
			if (runnable instanceof Task<?> task) {
				// After shutdown a retry ends its call instead of attempting (see AsyncCall).
				task.runnable.run();
			}
		}
		awaitTermination(10, TimeUnit.SECONDS);
	}

	/**
	 * Keeps the scheduled runnable reachable, so that it can be ended on shutdown; and leaves
	 * the queue when cancelled, so that a cancelled call is not kept until its delay passes.
	 */
	private final class Task<V> implements RunnableScheduledFuture<V> {

		private final Runnable runnable;

		private final RunnableScheduledFuture<V> delegate;

		Task(Runnable runnable, RunnableScheduledFuture<V> delegate) {
			this.runnable = runnable;
			this.delegate = delegate;
		}

		@Override
		public void run() {
			this.delegate.run();
		}

		@Override
		public boolean isPeriodic() {
			return this.delegate.isPeriodic();
		}

		@Override
		public long getDelay(TimeUnit unit) {
			return this.delegate.getDelay(unit);
		}

		@Override
		public int compareTo(Delayed other) {
			return this.delegate.compareTo((other instanceof Task<?> task) ? task.delegate : other);
		}

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			boolean cancelled = this.delegate.cancel(mayInterruptIfRunning);
			if (cancelled) {
				// The queue holds this wrapper, which the delegate cannot remove by itself.
				remove(this);
			}
			return cancelled;
		}

		@Override
		public boolean isCancelled() {
			return this.delegate.isCancelled();
		}

		@Override
		public boolean isDone() {
			return this.delegate.isDone();
		}

		@Override
		public V get() throws InterruptedException, ExecutionException {
			return this.delegate.get();
		}

		@Override
		public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
			return this.delegate.get(timeout, unit);
		}

	}

}
