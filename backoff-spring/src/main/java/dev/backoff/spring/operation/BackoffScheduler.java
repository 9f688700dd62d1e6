package dev.backoff.spring.operation;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import dev.backoff.spring.config.BackoffSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.task.VirtualThreadTaskExecutor;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The scheduler of non-blocking retries ({@code CompletionStage} methods), owned by the
 * application context and configured by {@code backoff.scheduler.*}. On close it stops at
 * once and ends every call still waiting for a retry: each fails with its last original
 * failure and the outcome {@code interrupted}, instead of leaving its caller waiting forever.
 * That is why it is a {@link ScheduledThreadPoolExecutor} of its own rather than Spring's
 * {@code ThreadPoolTaskScheduler}, whose shutdown can only cancel a pending task, never reach
 * the call behind it. A cancelled retry leaves the queue at once. Its timer threads only end
 * the waits: each retried attempt runs on a thread of its own (made on demand, up to a bound,
 * or virtual), so that one method's slow attempts cannot delay another method's retries. Retries of {@code Mono} and
 * {@code Flux} methods wait on Reactor's scheduler, and end at close through {@link #onClose}.
 */
public class BackoffScheduler extends ScheduledThreadPoolExecutor implements DisposableBean {

	/** The runnable behind each task not yet run nor cancelled, to end its call on shutdown. */
	private final Map<Runnable, Runnable> pending = new ConcurrentHashMap<>();

	/** What runs as the scheduler closes; each removes itself once it no longer needs to. */
	private final Set<Runnable> closeActions = ConcurrentHashMap.newKeySet();

	private volatile boolean closed;

	/** The most threads that run retried attempts at once, by default, when they are platform threads. */
	public static final int DEFAULT_MAX_ATTEMPT_THREADS = 256;

	/** Runs the retried attempts, so that slow user code cannot hold up another method's retry. */
	private final ThreadPoolExecutor attempts;

	/**
	 * The scheduler as {@code backoff.scheduler.*} configures it, whether Spring Boot binds
	 * the settings or {@code @EnableBackoff} does.
	 * @param settings {@code backoff.scheduler}
	 * @param virtualThreads whether the application runs on virtual threads: then the timer
	 * and attempt threads are virtual, and the attempts unbounded
	 * @return the scheduler
	 */
	public static BackoffScheduler create(BackoffSettings.Scheduler settings, boolean virtualThreads) {
		Integer poolSize = settings.getPoolSize();
		ThreadFactory threads;
		int maxAttemptThreads;
		if (virtualThreads) {
			threads = new VirtualThreadTaskExecutor(settings.getThreadNamePrefix()).getVirtualThreadFactory();
			maxAttemptThreads = Integer.MAX_VALUE;
		}
		else {
			CustomizableThreadFactory platform = new CustomizableThreadFactory(settings.getThreadNamePrefix());
			platform.setDaemon(true);
			threads = platform;
			maxAttemptThreads = DEFAULT_MAX_ATTEMPT_THREADS;
		}
		return new BackoffScheduler((poolSize != null) ? poolSize : Math.max(2, Runtime.getRuntime().availableProcessors()),
				threads, maxAttemptThreads);
	}

	/**
	 * @param poolSize the number of timer threads, which end the waits
	 * @param threadFactory makes the threads: platform daemon threads, or virtual ones
	 */
	public BackoffScheduler(int poolSize, ThreadFactory threadFactory) {
		this(poolSize, threadFactory, DEFAULT_MAX_ATTEMPT_THREADS);
	}

	/**
	 * @param poolSize the number of timer threads, which end the waits
	 * @param threadFactory makes the threads: platform daemon threads, or virtual ones
	 * @param maxAttemptThreads the most threads that run retried attempts at once, made on
	 * demand and dropped after a minute idle; past that an attempt runs on the timer thread
	 */
	public BackoffScheduler(int poolSize, ThreadFactory threadFactory, int maxAttemptThreads) {
		super(poolSize, threadFactory);
		setRemoveOnCancelPolicy(true);
		this.attempts = new ThreadPoolExecutor(0, maxAttemptThreads, 1, TimeUnit.MINUTES, new SynchronousQueue<>(),
				threadFactory);
	}

	@Override
	public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
		return super.schedule(() -> handOff(command), delay, unit);
	}

	/** Runs a retried attempt off the timer thread; on it only when no other thread can take it. */
	private void handOff(Runnable command) {
		if (!isShutdown()) {
			try {
				this.attempts.execute(command);
				return;
			}
			catch (RejectedExecutionException ex) {
				// Every attempt thread is busy: run here rather than drop the retry.
			}
		}
		// Shut down: the attempt ends its call instead of running (see AsyncCall).
		command.run();
	}

	@Override
	protected <V> RunnableScheduledFuture<V> decorateTask(Runnable runnable, RunnableScheduledFuture<V> task) {
		this.pending.put(task, runnable);
		return task;
	}

	@Override
	protected void afterExecute(Runnable task, @Nullable Throwable failure) {
		// A timer thread that took a retry off the queue as the executor stopped finds it stopped:
		// ScheduledFutureTask.run() then cancels the task instead of running it, and neither
		// shutdownNow()'s list nor remove() sees it. Its retry runs now and ends its call instead.
		Runnable retry = this.pending.remove(task);
		if (retry != null && isShutdown() && ((Future<?>) task).isCancelled()) {
			retry.run();
		}
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
	 * Runs {@code action} as the scheduler closes, before anything waiting on it is ended: for
	 * retries that wait elsewhere (Reactor's), so that they end at close too. At once if it has
	 * closed already.
	 * @param action what to run
	 * @return removes the action: a wait that ends must, or every wait would stay referenced
	 * until the close
	 */
	public Runnable onClose(Runnable action) {
		this.closeActions.add(action);
		if (this.closed && this.closeActions.remove(action)) {
			action.run();
		}
		return () -> this.closeActions.remove(action);
	}

	/** @return how many close actions are registered: waits under way, for tests */
	int getCloseActionCount() {
		return this.closeActions.size();
	}

	@Override
	public void destroy() throws InterruptedException {
		List<Runnable> queued = shutdownNow();
		this.closed = true;
		for (Runnable action : this.closeActions) {
			if (this.closeActions.remove(action)) {
				action.run();
			}
		}
		for (Runnable task : queued) {
			Runnable retry = this.pending.remove(task);
			if (retry != null) {
				// After shutdown a retry ends its call instead of attempting (see AsyncCall).
				retry.run();
			}
		}
		this.attempts.shutdown();
		awaitTermination(10, TimeUnit.SECONDS);
		this.attempts.awaitTermination(10, TimeUnit.SECONDS);
	}

}
