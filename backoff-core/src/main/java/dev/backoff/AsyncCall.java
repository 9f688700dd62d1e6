package dev.backoff;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * One non-blocking call: the future handed to the caller, and the task that the scheduler runs
 * for each attempt after the first. Attempts run one after another, each started by the
 * completion of the one before, so the state needs no lock; only the end of the call races
 * with {@link #cancel}, and {@link BackoffCall} lets exactly one of them report it.
 */
final class AsyncCall<T extends @Nullable Object> extends CompletableFuture<T> implements Runnable {

	private final BackoffCall call;

	private final Supplier<? extends CompletionStage<T>> task;

	private final ScheduledExecutorService scheduler;

	/** The scheduled wait: what a cancellation must stop. */
	private volatile @Nullable Future<?> pending;

	/** The failure that the pending retry follows, handed over if the scheduler stops. */
	private @Nullable Throwable lastFailure;

	private @Nullable T lastResult;

	AsyncCall(BackoffCall call, Supplier<? extends CompletionStage<T>> task, ScheduledExecutorService scheduler) {
		this.call = call;
		this.task = task;
		this.scheduler = scheduler;
	}

	/** Starts one attempt; the scheduler runs this after each wait. */
	@Override
	public void run() {
		if (this.call.isEnded()) {
			return;
		}
		if (isDone()) {
			// The caller completed the future (say with orTimeout): no further attempt is wanted.
			this.call.interrupt(new CancellationException("The caller completed the future"));
			return;
		}
		if (this.call.getAttempts() > 0 && this.scheduler.isShutdown()) {
			// Run by the scheduler's owner as it shuts down: end the call instead of attempting.
			endInterrupted(new RejectedExecutionException("The scheduler was shut down before the next attempt"));
			return;
		}
		CompletionStage<T> stage;
		try {
			stage = this.call.attempt(this.task::get);
			if (stage == null) {
				throw new IllegalStateException("The task returned null instead of a CompletionStage");
			}
		}
		catch (Throwable ex) {
			scheduleOrEnd(ex, null);
			return;
		}
		// The attempt's own stage is not kept for cancel(): it is the method's, and may be shared
		// with other callers (a cached future), whose calls one caller's cancellation must not end.
		this.pending = null;
		stage.whenComplete(this::afterAttempt);
	}

	private void afterAttempt(@Nullable T result, @Nullable Throwable failure) {
		if (failure != null) {
			scheduleOrEnd(unwrap(failure), null);
			return;
		}
		boolean retryResult;
		try {
			retryResult = this.call.isRetryableResult(result);
		}
		catch (RuntimeException | Error ex) {
			// The call has ended: complete rather than leave the caller waiting.
			completeExceptionally(ex);
			return;
		}
		if (retryResult) {
			scheduleOrEnd(null, result);
		}
		else if (this.call.succeed()) {
			complete(result);
		}
	}

	private void scheduleOrEnd(@Nullable Throwable failure, @Nullable T result) {
		if (this.call.isEnded()) {
			return;
		}
		this.lastFailure = failure;
		this.lastResult = result;
		Duration delay = this.call.nextDelay(failure);
		if (delay == null) {
			finish(this.call.end(failure), result);
			return;
		}
		try {
			Future<?> scheduled = this.scheduler.schedule(this, delay.toNanos(), TimeUnit.NANOSECONDS);
			this.pending = scheduled;
			if (this.call.isEnded()) {
				// Cancelled while this was scheduling: cancel() may have read the previous pending.
				scheduled.cancel(false);
			}
		}
		catch (RejectedExecutionException ex) {
			// The scheduler is shutting down: end now rather than leave the caller waiting.
			endInterrupted(ex);
		}
	}

	private void endInterrupted(Exception reason) {
		Throwable failure = this.lastFailure;
		if (failure != null) {
			failure.addSuppressed(reason);
		}
		if (this.call.interrupt(failure)) {
			finish(failure, this.lastResult);
		}
	}

	private void finish(@Nullable Throwable failure, @Nullable T result) {
		if (failure != null) {
			completeExceptionally(failure);
		}
		else {
			complete(result);
		}
	}

	/**
	 * Cancels the call: no later attempt starts and the pending wait is dropped. The attempt in
	 * flight, if any, is left to finish: its future belongs to the method and may be shared. Ends
	 * the call with {@link Outcome#INTERRUPTED}.
	 */
	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		if (!this.call.interrupt(new CancellationException("Cancelled by the caller"))) {
			return false;
		}
		boolean cancelled = super.cancel(mayInterruptIfRunning);
		Future<?> pending = this.pending;
		if (pending != null) {
			pending.cancel(mayInterruptIfRunning);
		}
		return cancelled;
	}

	private static Throwable unwrap(Throwable failure) {
		Throwable current = failure;
		while ((current instanceof CompletionException || current instanceof ExecutionException)
				&& current.getCause() != null) {
			current = current.getCause();
		}
		return current;
	}

}
