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
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * One non-blocking call: the future handed to the caller, and the task that the scheduler runs
 * for each attempt after the first. Attempts run one after another, each started by the
 * completion of the one before, so the state needs no lock; only the end of the call races
 * with {@link #cancel}, and {@link BackoffCall} lets exactly one of them report it. With an
 * attempt timeout, each attempt is a {@link TimedAttempt}: its completion and its timer race,
 * and the first to settle it goes on while the other is dropped.
 */
final class AsyncCall<T extends @Nullable Object> extends CompletableFuture<T> implements RetryTask {

	private final BackoffCall call;

	private final Supplier<? extends CompletionStage<T>> task;

	private final ScheduledExecutorService scheduler;

	/** The scheduled wait: what a cancellation must stop. */
	private volatile @Nullable Future<?> pending;

	/** The attempt in flight, or the last one, when attempts are timed: its timer a cancellation must stop. */
	private volatile @Nullable TimedAttempt timed;

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
		int gate = AttemptGate.pass(this.call, this, this, this.scheduler);
		if (gate == AttemptGate.NOT_SENT) {
			finish(this.call.end(this.lastFailure), this.lastResult);
		}
		if (gate != AttemptGate.SEND) {
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
		// Read per attempt rather than kept in a field: a call without one stays as small as before.
		Duration timeout = this.call.getAttemptTimeout();
		if (timeout == null || isCompleted(stage)) {
			stage.whenComplete(this::afterAttempt);
		}
		else {
			time(stage, timeout.toNanos());
		}
	}

	/**
	 * Whether the stage is a plain {@code CompletableFuture} already complete: it needs no timer.
	 * Only the exact class is asked, since a subclass may refuse {@code isDone()} (a minimal stage does).
	 */
	private static boolean isCompleted(CompletionStage<?> stage) {
		return stage.getClass() == CompletableFuture.class && ((CompletableFuture<?>) stage).isDone();
	}

	/** Follows an attempt's stage and starts its timer, unless it completed meanwhile. */
	private void time(CompletionStage<T> stage, long timeoutNanos) {
		TimedAttempt attempt = new TimedAttempt(stage);
		this.timed = attempt;
		stage.whenComplete(attempt);
		if (attempt.isSettled()) {
			return;
		}
		Future<?> timer;
		try {
			timer = this.scheduler.schedule(attempt, timeoutNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// The scheduler is shutting down: nothing could bound the attempt, nor retry after it.
			if (attempt.settle()) {
				endUntimed(ex);
			}
			return;
		}
		attempt.timer = timer;
		if (attempt.isSettled() || this.call.isEnded()) {
			// Completed or cancelled while this was scheduling: accept() or cancel() may have read no timer.
			timer.cancel(false);
		}
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

	/**
	 * Ends a call whose attempt in flight cannot be timed: the scheduler shut down. After an
	 * earlier attempt, as a retry that cannot be scheduled ends; the first ends with the reason.
	 */
	private void endUntimed(RejectedExecutionException reason) {
		if (this.call.getAttempts() > 1) {
			endInterrupted(reason);
		}
		else if (this.call.interrupt(reason)) {
			completeExceptionally(reason);
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
		TimedAttempt timed = this.timed;
		if (timed != null) {
			timed.cancelTimer();
		}
		return cancelled;
	}

	static Throwable unwrap(Throwable failure) {
		Throwable current = failure;
		while ((current instanceof CompletionException || current instanceof ExecutionException)
				&& current.getCause() != null) {
			current = current.getCause();
		}
		return current;
	}

	/**
	 * One attempt under an attempt timeout: the callback of its stage and the task of its timer.
	 * Whichever runs first settles the attempt and carries the call on; the other finds it
	 * settled and does nothing, so a result that comes after the timeout is ignored.
	 */
	@SuppressWarnings("serial")
	private final class TimedAttempt extends AtomicBoolean implements Runnable, BiConsumer<T, @Nullable Throwable> {

		private final CompletionStage<T> stage;

		volatile @Nullable Future<?> timer;

		TimedAttempt(CompletionStage<T> stage) {
			this.stage = stage;
		}

		boolean settle() {
			return compareAndSet(false, true);
		}

		boolean isSettled() {
			return get();
		}

		void cancelTimer() {
			Future<?> timer = this.timer;
			if (timer != null) {
				timer.cancel(false);
			}
		}

		/** The attempt's stage completed. */
		@Override
		public void accept(@Nullable T result, @Nullable Throwable failure) {
			if (settle()) {
				cancelTimer();
				afterAttempt(result, failure);
			}
		}

		/** The attempt's timer fired: it has not completed in time. */
		@Override
		public void run() {
			if (AsyncCall.this.call.isEnded()) {
				return;
			}
			if (isDone()) {
				// The caller completed the future: the call ends, as run() would end it, and the
				// attempt, wanted by no one here, is left alone.
				if (settle()) {
					AsyncCall.this.call.interrupt(new CancellationException("The caller completed the future"));
				}
				return;
			}
			if (AsyncCall.this.scheduler.isShutdown()) {
				// Run early, as the scheduler stops (or late, on one that has stopped): no retry
				// could follow, so the call ends now rather than wait for an unbounded attempt.
				if (settle()) {
					endUntimed(new RejectedExecutionException("The scheduler was shut down while attempt "
							+ AsyncCall.this.call.getAttempts() + " was in flight"));
				}
				return;
			}
			if (!settle()) {
				return;
			}
			TimeoutException timeout = AsyncCall.this.call.attemptTimedOut();
			if (this.stage instanceof CompletableFuture<?> future) {
				try {
					// Its dependents learn why it ended; the work behind it cannot be stopped from here.
					future.completeExceptionally(timeout);
				}
				catch (UnsupportedOperationException ex) {
					// A minimal stage cannot be completed from outside: it is left as it is.
				}
			}
			scheduleOrEnd(timeout, null);
		}

	}

}
