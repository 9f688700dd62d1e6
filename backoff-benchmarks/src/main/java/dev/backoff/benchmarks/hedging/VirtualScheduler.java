package dev.backoff.benchmarks.hedging;

import java.util.List;
import java.util.PriorityQueue;
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
 * A discrete-event scheduler in virtual time: {@code schedule} queues a task at the current
 * virtual time plus its delay, and {@link #run()} runs the tasks in time order on the calling
 * thread, moving the clock to each one's time; tasks due at the same time run in the order
 * scheduled. Nothing sleeps and no thread is started, so a run is as fast as its tasks and the
 * same every time. The real executor's hedge timers, attempt timeouts and retry waits are
 * scheduled here, beside the model's own events (arrivals, answers). Single-threaded: one run
 * owns one scheduler.
 */
public final class VirtualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

	private final PriorityQueue<Task<?>> queue = new PriorityQueue<>();

	private long now;

	private long sequence;

	private boolean shutdown;

	/** @return the virtual time in nanoseconds since the run started */
	public long nanoTime() {
		return this.now;
	}

	/** Runs every task, those scheduled meanwhile included, until none is left. */
	public void run() {
		Task<?> task;
		while ((task = this.queue.poll()) != null) {
			if (task.isCancelled()) {
				continue;
			}
			this.now = task.time;
			task.run();
			task.rethrowFailure();
		}
	}

	@Override
	public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
		return enqueue(Executors.callable(command), delay, unit);
	}

	@Override
	public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
		return enqueue(callable, delay, unit);
	}

	private <V> ScheduledFuture<V> enqueue(Callable<V> callable, long delay, TimeUnit unit) {
		if (this.shutdown) {
			throw new RejectedExecutionException("The virtual scheduler is shut down");
		}
		Task<V> task = new Task<>(callable, this.now + Math.max(0, unit.toNanos(delay)), this.sequence++);
		this.queue.add(task);
		return task;
	}

	@Override
	public void execute(Runnable command) {
		schedule(command, 0, TimeUnit.NANOSECONDS);
	}

	@Override
	public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
		throw new UnsupportedOperationException("Not needed by the executor");
	}

	@Override
	public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
		throw new UnsupportedOperationException("Not needed by the executor");
	}

	@Override
	public void shutdown() {
		this.shutdown = true;
	}

	@Override
	public List<Runnable> shutdownNow() {
		this.shutdown = true;
		List<Runnable> dropped = List.copyOf(this.queue);
		this.queue.clear();
		return dropped;
	}

	@Override
	public boolean isShutdown() {
		return this.shutdown;
	}

	@Override
	public boolean isTerminated() {
		return this.shutdown && this.queue.isEmpty();
	}

	@Override
	public boolean awaitTermination(long timeout, TimeUnit unit) {
		return isTerminated();
	}

	private final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {

		private final long time;

		private final long order;

		Task(Callable<V> callable, long time, long order) {
			super(callable);
			this.time = time;
			this.order = order;
		}

		@Override
		public long getDelay(TimeUnit unit) {
			return unit.convert(this.time - VirtualScheduler.this.now, TimeUnit.NANOSECONDS);
		}

		@Override
		public int compareTo(Delayed other) {
			Task<?> task = (Task<?>) other;
			int byTime = Long.compare(this.time, task.time);
			return (byTime != 0) ? byTime : Long.compare(this.order, task.order);
		}

		/** FutureTask keeps what a task throws: a run must not go on past a failure of its own. */
		void rethrowFailure() {
			if (isDone() && !isCancelled()) {
				try {
					get();
				}
				catch (ExecutionException ex) {
					throw new IllegalStateException("A scheduled task failed", ex.getCause());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			}
		}

	}

}
