package dev.backoff;

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

import org.jspecify.annotations.Nullable;

/**
 * A {@link ScheduledExecutorService} driven by the test: {@code schedule} only queues the task
 * and records its delay; {@link #runNext()} runs the oldest one on the calling thread, first
 * advancing the clock (when given one) by its delay, and flagged so that the task can tell it
 * runs here ({@link #isRunningTask()}). After {@link #shutdown()} it rejects new tasks, like a
 * real scheduler shutting down. Shared with the other modules' tests through this module's
 * test jar.
 */
public final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

	private static final ThreadLocal<Boolean> RUNNING = ThreadLocal.withInitial(() -> false);

	private final Deque<Task<?>> queue = new ArrayDeque<>();

	private final List<Duration> delays = new ArrayList<>();

	private final List<Task<?>> scheduled = new ArrayList<>();

	private final @Nullable ManualNanoClock clock;

	private boolean shutdown;

	public ManualScheduler() {
		this(null);
	}

	public ManualScheduler(@Nullable ManualNanoClock clock) {
		this.clock = clock;
	}

	/** @return whether the calling code runs inside a task of a {@link ManualScheduler} */
	public static boolean isRunningTask() {
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
		this.scheduled.add(task);
		this.delays.add(task.delay);
		return task;
	}

	/**
	 * Runs the oldest task that is not cancelled.
	 * @return whether a task ran
	 */
	public boolean runNext() {
		Task<?> task;
		while ((task = poll()) != null) {
			if (!task.isCancelled()) {
				if (this.clock != null) {
					this.clock.advance(task.delay);
				}
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

	private synchronized @Nullable Task<?> poll() {
		return this.queue.poll();
	}

	/**
	 * Runs tasks, including those they schedule, until none is left.
	 * @return the number of tasks run
	 */
	public int runAll() {
		int ran = 0;
		while (runNext()) {
			if (++ran > 10_000) {
				throw new AssertionError("Tasks keep scheduling tasks");
			}
		}
		return ran;
	}

	/** @return the delay of every task scheduled, in order */
	public synchronized List<Duration> delays() {
		return List.copyOf(this.delays);
	}

	/** @return every task scheduled, in order, cancelled ones included */
	public synchronized List<? extends ScheduledFuture<?>> scheduled() {
		return List.copyOf(this.scheduled);
	}

	/** @return the number of tasks waiting to run, cancelled ones excluded */
	public synchronized long pending() {
		return this.queue.stream().filter((task) -> !task.isCancelled()).count();
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
