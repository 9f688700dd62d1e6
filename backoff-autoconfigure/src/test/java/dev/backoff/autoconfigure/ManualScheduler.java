package dev.backoff.autoconfigure;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ScheduledExecutorService} driven by the test: {@code schedule} only queues the task
 * and records its delay; {@link #runNext()} runs the oldest one on the calling thread, flagged
 * so that the task can tell it runs on this scheduler. Registered as the bean named
 * {@code backoffScheduler}, it replaces the default scheduler of non-blocking retries.
 */
final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

	private static final ThreadLocal<Boolean> RUNNING = ThreadLocal.withInitial(() -> false);

	private final Deque<Task<?>> queue = new ArrayDeque<>();

	private final List<Duration> delays = new ArrayList<>();

	private boolean shutdown;

	/** @return whether the calling code runs inside a task of a {@link ManualScheduler} */
	static boolean isRunningTask() {
		return RUNNING.get();
	}

	@Override
	public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
		return enqueue(Executors.callable(command), delay, unit);
	}

	@Override
	public synchronized <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
		return enqueue(callable, delay, unit);
	}

	private <V> ScheduledFuture<V> enqueue(Callable<V> callable, long delay, TimeUnit unit) {
		if (this.shutdown) {
			throw new RejectedExecutionException("ManualScheduler is shut down");
		}
		Task<V> task = new Task<>(callable, Duration.ofNanos(unit.toNanos(delay)));
		this.queue.add(task);
		this.delays.add(task.delay);
		return task;
	}

	/**
	 * Runs the oldest task that is not cancelled.
	 * @return whether a task ran
	 */
	boolean runNext() {
		Task<?> task;
		while ((task = poll()) != null) {
			if (!task.isCancelled()) {
				RUNNING.set(true);
				try {
					task.run();
				}
				finally {
					RUNNING.set(false);
				}
				task.rethrowFailure();
				return true;
			}
		}
		return false;
	}

	private synchronized Task<?> poll() {
		return this.queue.poll();
	}

	/**
	 * Runs tasks, including those they schedule, until none is left.
	 * @return the number of tasks run
	 */
	int runAll() {
		int ran = 0;
		while (runNext()) {
			if (++ran > 10_000) {
				throw new AssertionError("Tasks keep scheduling tasks");
			}
		}
		return ran;
	}

	/** @return the delay of every task scheduled, in order */
	synchronized List<Duration> delays() {
		return List.copyOf(this.delays);
	}

	/** @return the number of tasks waiting to run, cancelled ones excluded */
	synchronized long pending() {
		return this.queue.stream().filter((task) -> !task.isCancelled()).count();
	}

	@Override
	public void execute(Runnable command) {
		schedule(command, 0, TimeUnit.NANOSECONDS);
	}

	@Override
	public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
		throw new UnsupportedOperationException("Not needed by Backoff");
	}

	@Override
	public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
		throw new UnsupportedOperationException("Not needed by Backoff");
	}

	@Override
	public synchronized void shutdown() {
		this.shutdown = true;
	}

	@Override
	public synchronized List<Runnable> shutdownNow() {
		this.shutdown = true;
		List<Runnable> dropped = new ArrayList<>(this.queue);
		this.queue.clear();
		return dropped;
	}

	@Override
	public synchronized boolean isShutdown() {
		return this.shutdown;
	}

	@Override
	public synchronized boolean isTerminated() {
		return this.shutdown && this.queue.isEmpty();
	}

	@Override
	public boolean awaitTermination(long timeout, TimeUnit unit) {
		return isTerminated();
	}

	private static final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {

		private final Duration delay;

		Task(Callable<V> callable, Duration delay) {
			super(callable);
			this.delay = delay;
		}

		@Override
		public long getDelay(TimeUnit unit) {
			return unit.convert(this.delay);
		}

		/** FutureTask keeps what a task throws; a test must see it. */
		void rethrowFailure() {
			if (isDone() && !isCancelled()) {
				try {
					get();
				}
				catch (ExecutionException ex) {
					throw new AssertionError("A scheduled task failed", ex.getCause());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new AssertionError(ex);
				}
			}
		}

		@Override
		public int compareTo(Delayed other) {
			return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
		}

	}

}
