package dev.backoff;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * with {@link #cancel}, and a single flag decides which of them reports it.
 */
final class AsyncCall<T extends @Nullable Object> extends CompletableFuture<T> implements Runnable {

	private static final VarHandle ENDED;

	static {
		try {
			ENDED = MethodHandles.lookup().findVarHandle(AsyncCall.class, "ended", boolean.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final CallState state;

	private final Supplier<? extends CompletionStage<T>> task;

	private final ScheduledExecutorService scheduler;

	@SuppressWarnings("unused") // through ENDED
	private volatile boolean ended;

	private volatile @Nullable Future<?> pending;

	AsyncCall(CallState state, Supplier<? extends CompletionStage<T>> task, ScheduledExecutorService scheduler) {
		this.state = state;
		this.task = task;
		this.scheduler = scheduler;
	}

	/** Starts one attempt. */
	@Override
	public void run() {
		if (this.ended) {
			return;
		}
		this.state.attempts++;
		CompletionStage<T> stage;
		try {
			stage = this.task.get();
			if (stage == null) {
				throw new IllegalStateException("The task returned null instead of a CompletionStage");
			}
		}
		catch (Throwable ex) {
			afterFailure(ex);
			return;
		}
		CompletableFuture<T> attempt = stage.toCompletableFuture();
		this.pending = attempt;
		attempt.whenComplete(this::afterAttempt);
	}

	private void afterAttempt(@Nullable T result, @Nullable Throwable failure) {
		if (failure != null) {
			afterFailure(unwrap(failure));
		}
		else if (this.state.policy.isRetryableResult(result)) {
			scheduleOrEnd(null, result);
		}
		else if (end()) {
			this.state.succeed();
			complete(result);
		}
	}

	private void afterFailure(Throwable failure) {
		scheduleOrEnd(failure, null);
	}

	private void scheduleOrEnd(@Nullable Throwable failure, @Nullable T result) {
		if (this.ended) {
			return;
		}
		Duration delay = this.state.nextDelay(failure);
		if (delay != null) {
			try {
				this.pending = this.scheduler.schedule(this, delay.toNanos(), TimeUnit.NANOSECONDS);
				return;
			}
			catch (RejectedExecutionException ex) {
				// The scheduler is shutting down: end now rather than leave the caller waiting.
				if (failure != null) {
					failure.addSuppressed(ex);
				}
				this.state.outcome = Outcome.INTERRUPTED;
			}
		}
		if (end()) {
			Outcome outcome = this.state.outcome;
			if (failure != null) {
				completeExceptionally(this.state.fail(outcome, failure));
			}
			else {
				this.state.fail(outcome, null);
				complete(result);
			}
		}
	}

	/**
	 * Cancels the call: no later attempt starts, the pending wait is dropped and the attempt in
	 * flight is cancelled. Ends the call with {@link Outcome#INTERRUPTED}.
	 */
	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		if (!end()) {
			return false;
		}
		CancellationException cancellation = new CancellationException("Cancelled by the caller");
		this.state.fail(Outcome.INTERRUPTED, cancellation);
		boolean cancelled = super.cancel(mayInterruptIfRunning);
		Future<?> pending = this.pending;
		if (pending != null) {
			pending.cancel(mayInterruptIfRunning);
		}
		return cancelled;
	}

	/** Claims the end of the call; only one claimant wins. */
	private boolean end() {
		return ENDED.compareAndSet(this, false, true);
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
