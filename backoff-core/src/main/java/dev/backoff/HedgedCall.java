package dev.backoff;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * One non-blocking call under a policy with {@link Hedging}: its copies may overlap. When no
 * copy has answered within the hedge delay of the last one sent, another is sent, up to the
 * policy's {@code maxHedges} per call, while attempts remain and the budget allows retries. The
 * first successful answer wins and the copies still running are cancelled. Each hedge is paid for
 * as it is sent from the policy's {@link HedgeTokens}, if given: when they are spent, it is held
 * back, and the call waits for the copies it has. A copy that fails
 * while another runs ends nothing, unless no retry could follow its failure (it is not
 * retryable), and the next hedge, if any remains, is sent at once; when the last one fails, the
 * call retries after the policy's wait, as {@link AsyncCall} does, or ends.
 *
 * <p>Unlike {@link AsyncCall}, copies complete concurrently: the state is kept, and every end
 * of the call decided, under a lock. Completing the caller's future and cancelling the losers
 * run the callbacks of others, so they are done after it is released.
 */
final class HedgedCall<T extends @Nullable Object> extends CompletableFuture<T> implements RetryTask {

	private final BackoffCall call;

	private final Supplier<? extends CompletionStage<T>> task;

	private final ScheduledExecutorService scheduler;

	private final HedgeDelay hedgeDelay;

	/** The wait before each hedge of the round under way: the hedge delay as it started. */
	private long hedgeDelayNanos;

	private final int maxHedges;

	/** What the policy's hedges are paid from, or {@code null} for no cap. */
	private final @Nullable HedgeTokens hedgeTokens;

	/** Each copy's attempt timeout, or 0 for none. */
	private final long attemptTimeoutNanos;

	private final Object lock = new Object();

	/** The copies in flight, in the order sent. */
	private final List<HedgeCopy<T>> running = new ArrayList<>(2);

	private int hedgesSent;

	/** Whether a retry followed a wait: a call won by a hedge alone succeeded without one. */
	private boolean retried;

	/** The next hedge's timer, or the wait before a retry: what a cancellation must stop. */
	private @Nullable Future<?> pending;

	private @Nullable Throwable lastFailure;

	private @Nullable T lastResult;

	HedgedCall(BackoffCall call, @Nullable Latencies latencies, @Nullable HedgeTokens hedgeTokens, NanoClock clock,
			Supplier<? extends CompletionStage<T>> task, ScheduledExecutorService scheduler) {
		this.hedgeDelay = new HedgeDelay(call, latencies, clock);
		this.call = call;
		this.task = task;
		this.scheduler = scheduler;
		// Inside another retrying call's attempt, that call retries the whole: copies here would
		// multiply the load as nested retries would.
		this.maxHedges = call.isNested() ? 0 : call.getPolicy().getHedging().getMaxHedges();
		this.hedgeTokens = hedgeTokens;
		if (hedgeTokens != null && this.maxHedges > 0) {
			hedgeTokens.onCall();
		}
		Duration attemptTimeout = call.getAttemptTimeout();
		this.attemptTimeoutNanos = (attemptTimeout != null) ? attemptTimeout.toNanos() : 0;
	}

	/** Sends the call's first copy, or, after a retry's wait, the first copy of the retry. */
	@Override
	public void run() {
		Runnable after;
		synchronized (this.lock) {
			int gate = this.call.isEnded() ? AttemptGate.HELD : AttemptGate.pass(this.call, this, this, this.scheduler);
			if (gate == AttemptGate.HELD) {
				return;
			}
			if (gate == AttemptGate.NOT_SENT) {
				Throwable end = this.call.end(this.lastFailure);
				T result = this.lastResult;
				after = () -> finish(end, result);
			}
			else if (isDone()) {
				// The caller completed the future (say with orTimeout): no further attempt is wanted.
				this.call.interrupt(new CancellationException("The caller completed the future"));
				return;
			}
			else if (this.call.getAttempts() > 0 && this.scheduler.isShutdown()) {
				after = endInterrupted(new RejectedExecutionException("The scheduler was shut down before the next attempt"));
			}
			else {
				this.retried = this.call.getAttempts() > 0;
				this.hedgeDelayNanos = this.hedgeDelay.startRound();
				after = send(false);
			}
		}
		after.run();
	}

	/** The hedge timer fired: no copy has answered within the hedge delay of the last one sent. */
	private void hedge() {
		Runnable after;
		synchronized (this.lock) {
			if (!mayHedge()) {
				return;
			}
			this.hedgesSent++;
			after = send(true);
		}
		after.run();
	}

	/**
	 * Whether another copy may be sent now: not while waiting for a retry, out of hedges or
	 * attempts, or while the budget refuses retries (the dependency fails for many callers: a
	 * copy would only add to its load); and, last, once the hedge is paid for (a hedge held back
	 * is reported: the hedge tokens are spent). Asked only just before a hedge is sent. Holds the lock.
	 */
	private boolean mayHedge() {
		RetryBudget budget = this.call.budget();
		return !this.call.isEnded() && !isDone() && !this.running.isEmpty() && this.hedgesSent < this.maxHedges
				&& this.call.getAttempts() < this.call.getPolicy().getSchedule().getMaxAttempts()
				&& (budget == null || budget.allowsRetries()) && !OverloadControls.holdsHedges(this.call) && paid();
	}

	private boolean paid() {
		HedgeTokens tokens = this.hedgeTokens;
		if (tokens == null || tokens.tryHedge()) {
			return true;
		}
		ListenerCalls.hedge(this.call.listener(), HedgeEvent.HELD_BACK, this.call.getAttempts() + 1);
		return false;
	}

	/** Sends a copy and follows it; holds the lock. */
	private Runnable send(boolean hedge) {
		CompletionStage<T> stage;
		try {
			stage = this.call.attempt(this.task::get);
			if (stage == null) {
				throw new IllegalStateException("The task returned null instead of a CompletionStage");
			}
		}
		catch (Throwable ex) {
			stage = CompletableFuture.failedFuture(ex);
		}
		HedgeCopy<T> copy = new HedgeCopy<>(this, stage, this.call.getAttempts(), hedge);
		this.running.add(copy);
		if (hedge) {
			ListenerCalls.hedge(this.call.listener(), HedgeEvent.SENT, copy.attempt);
		}
		armHedge();
		if (this.attemptTimeoutNanos > 0) {
			time(copy);
		}
		// Follows the copy once the lock is released: one already complete runs its callback at once.
		return () -> copy.stage.whenComplete(copy);
	}

	/** Starts the timer of the next hedge, in place of the last one; holds the lock. */
	private void armHedge() {
		cancelPending();
		if (this.hedgesSent >= this.maxHedges) {
			return;
		}
		try {
			this.pending = this.scheduler.schedule(this::hedge, this.hedgeDelayNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// The scheduler is shutting down: the copies in flight go on without hedges.
		}
	}

	/** Fails the copy with a timeout if it is still running after the attempt timeout; holds the lock. */
	private void time(HedgeCopy<T> copy) {
		try {
			copy.timer = this.scheduler.schedule(() -> {
				TimeoutException timeout = this.call.attemptTimedOut(copy.attempt);
				if (copy.stage instanceof CompletableFuture<?> future) {
					// Its dependents learn why it ended, as with AsyncCall; the callback then follows it.
					future.completeExceptionally(timeout);
				}
				completed(copy, null, timeout);
			}, this.attemptTimeoutNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// The scheduler is shutting down: the copy goes on untimed.
		}
	}

	void completed(HedgeCopy<T> copy, @Nullable T result, @Nullable Throwable failure) {
		copy.cancelTimer();
		Runnable after;
		synchronized (this.lock) {
			if (!this.running.remove(copy) || this.call.isEnded()) {
				// A loser, cancelled, or a copy answering after the call ended.
				return;
			}
			after = (failure != null) ? failed(copy, AsyncCall.unwrap(failure)) : answered(copy, result);
		}
		after.run();
	}

	/** Holds the lock. */
	private Runnable answered(HedgeCopy<T> copy, @Nullable T result) {
		boolean retryResult;
		try {
			retryResult = this.call.isRetryableResult(result);
		}
		catch (RuntimeException | Error ex) {
			// The call has ended: complete rather than leave the caller waiting.
			List<HedgeCopy<T>> losers = drain();
			return () -> {
				cancelCopies(losers);
				completeExceptionally(ex);
			};
		}
		if (retryResult) {
			return this.running.isEmpty() ? scheduleOrEnd(null, result) : keep(copy, null, result);
		}
		// Every end is decided under the lock: the copy's events come before the call's end.
		if (copy.hedge) {
			ListenerCalls.hedge(this.call.listener(), HedgeEvent.WON, copy.attempt);
		}
		List<HedgeCopy<T>> losers = drain();
		this.hedgeDelay.answered();
		this.call.succeed(this.retried ? Outcome.SUCCESS_AFTER_RETRY : Outcome.SUCCESS);
		return () -> {
			cancelCopies(losers);
			complete(result);
		};
	}

	/** Holds the lock. */
	private Runnable failed(HedgeCopy<T> copy, Throwable failure) {
		if (this.running.isEmpty()) {
			return scheduleOrEnd(failure, null);
		}
		RetryRules rules = this.call.getPolicy().getRules();
		if (!RuleCalls.isRetryable(rules, failure)) {
			// No retry could follow it: waiting for the other copies would only delay the answer.
			List<HedgeCopy<T>> losers = drain();
			Throwable end = this.call.abort(failure);
			return () -> {
				cancelCopies(losers);
				completeExceptionally(end);
			};
		}
		// Another copy may still answer. The failure costs its token, as a retried one does.
		RetryBudget budget = this.call.budget();
		if (budget != null) {
			budget.onFailure(RuleCalls.isThrottled(rules, failure));
		}
		OverloadControls.copyFailed(this.call, RuleCalls.isThrottled(rules, failure));
		this.call.remember(failure);
		Runnable kept = keep(copy, failure, null);
		if (mayHedge()) {
			// As gRPC's hedging does: the failed copy's place goes to the next hedge at once.
			this.hedgesSent++;
			return send(true);
		}
		return kept;
	}

	/** The copy failed, or its result asked for a retry, while another may still answer; holds the lock. */
	private Runnable keep(HedgeCopy<T> copy, @Nullable Throwable failure, @Nullable T result) {
		ListenerCalls.hedge(this.call.listener(), HedgeEvent.FAILED, copy.attempt, failure);
		this.lastFailure = failure;
		this.lastResult = result;
		return () -> {
		};
	}

	/** The last copy in flight failed: the wait before a retry, or the end. Holds the lock. */
	private Runnable scheduleOrEnd(@Nullable Throwable failure, @Nullable T result) {
		this.lastFailure = failure;
		this.lastResult = result;
		cancelPending();
		Duration delay = this.call.nextDelay(failure);
		if (delay == null) {
			Throwable end = this.call.end(failure);
			return () -> finish(end, result);
		}
		try {
			this.pending = this.scheduler.schedule(this, delay.toNanos(), TimeUnit.NANOSECONDS);
			return () -> {
			};
		}
		catch (RejectedExecutionException ex) {
			// The scheduler is shutting down: end now rather than leave the caller waiting.
			return endInterrupted(ex);
		}
	}

	private Runnable endInterrupted(Exception reason) {
		Throwable failure = this.lastFailure;
		if (failure != null) {
			failure.addSuppressed(reason);
		}
		List<HedgeCopy<T>> losers = drain();
		this.call.interrupt(failure);
		T result = this.lastResult;
		return () -> {
			cancelCopies(losers);
			finish(failure, result);
		};
	}

	private void finish(@Nullable Throwable failure, @Nullable T result) {
		if (failure != null) {
			completeExceptionally(failure);
		}
		else {
			complete(result);
		}
	}

	/** @return the copies in flight, reported cancelled and no longer followed; holds the lock */
	private List<HedgeCopy<T>> drain() {
		cancelPending();
		List<HedgeCopy<T>> losers = new ArrayList<>(this.running);
		this.running.clear();
		for (HedgeCopy<T> loser : losers) {
			loser.cancelTimer();
			ListenerCalls.hedge(this.call.listener(), HedgeEvent.CANCELLED, loser.attempt);
		}
		return losers;
	}

	private void cancelPending() {
		Future<?> pending = this.pending;
		if (pending != null) {
			pending.cancel(false);
			this.pending = null;
		}
	}

	/**
	 * Cancels copies whose answers are no longer wanted: each was sent by this call, so the work
	 * behind it (an HTTP exchange, a subscription) is stopped where its stage allows it.
	 */
	private void cancelCopies(List<HedgeCopy<T>> copies) {
		for (HedgeCopy<T> copy : copies) {
			try {
				copy.stage.toCompletableFuture().cancel(true);
			}
			catch (UnsupportedOperationException ex) {
				// A minimal stage cannot be cancelled from outside: its answer is ignored.
			}
		}
	}

	/**
	 * Cancels the call: no later copy is sent, the pending wait or hedge timer is dropped, and
	 * the copies in flight, sent for this caller alone, are cancelled. Ends the call with
	 * {@link Outcome#INTERRUPTED}.
	 */
	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		List<HedgeCopy<T>> copies;
		synchronized (this.lock) {
			if (this.call.isEnded()) {
				return false;
			}
			copies = drain();
			this.call.interrupt(new CancellationException("Cancelled by the caller"));
		}
		boolean cancelled = super.cancel(mayInterruptIfRunning);
		cancelCopies(copies);
		return cancelled;
	}

}
