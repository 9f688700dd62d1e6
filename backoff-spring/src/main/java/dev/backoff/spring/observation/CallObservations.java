package dev.backoff.spring.observation;

import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;

import dev.backoff.BackoffListener;
import dev.backoff.BackoffTask;
import dev.backoff.HedgeEvent;
import dev.backoff.Outcome;
import dev.backoff.spring.observation.BackoffAttemptObservationContext.AttemptOutcome;
import dev.backoff.spring.operation.BackoffOperation;
import dev.backoff.spring.operation.ObservedCall;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The observations of one call: the call's, started when the call starts, and the attempt's
 * under way. It listens to the call, before the method's own listener (see {@link #listener()}),
 * so the executor's own decisions end each attempt ({@code retried} with its delay,
 * {@code success} or {@code failed}) and the call. The copies of a hedged call overlap: each
 * ends with its own outcome when it ends, a loser {@code cancelled} and a copy that fails while
 * another runs {@code failed} with its failure, as the executor reports them, and the copy that
 * decides (the winner, or the last to fail) as the call ends or retries. Attempts and events
 * come one after another, but a cancellation may end the call from another thread while an
 * attempt starts: the lock keeps the two apart, so no observation is left open. Every step is
 * guarded: see {@link BackoffObservations}.
 */
final class CallObservations implements ObservedCall, BackoffListener {

	private final BackoffObservations observations;

	private final BackoffOperation operation;

	/** This, then the method's listener: what the call reports to. */
	private final BackoffListener listener;

	private final Observation call;

	/** The attempt started last, while it runs. */
	private @Nullable Observation attempt;

	/** Its number. */
	private int attemptNumber;

	private int attempts;

	/** The copies of a hedged call still running beside the last, by attempt number: made when copies overlap. */
	private @Nullable Map<Integer, Observation> overlapping;

	private boolean ended;

	CallObservations(BackoffObservations observations, BackoffOperation operation, Observation call) {
		this.observations = observations;
		this.operation = operation;
		this.call = call;
		BackoffListener methodListener = operation.getListener();
		// A composite, so that the executor calls the method's listener as it calls any other:
		// one that throws is reported once for that listener, not once per call for this one.
		this.listener = (methodListener == BackoffListener.NONE) ? this
				: BackoffListener.composite(List.of(this, methodListener));
	}

	@Override
	public BackoffListener listener() {
		return this.listener;
	}

	/**
	 * Starts the next attempt's observation.
	 * @return it, or {@code null} when the call has already ended or the start failed
	 */
	@Override
	public synchronized @Nullable Observation startAttempt() {
		if (this.ended) {
			return null;
		}
		this.attempts++;
		try {
			Observation attempt = this.observations.startAttempt(this.operation, this.attempts, this.call);
			if (attempt.isNoop()) {
				// A predicate turned backoff.attempt off.
				return null;
			}
			Observation running = this.attempt;
			if (running != null) {
				// A hedge: the copy sent before it runs on.
				Map<Integer, Observation> overlapping = this.overlapping;
				if (overlapping == null) {
					overlapping = new HashMap<>();
					this.overlapping = overlapping;
				}
				overlapping.put(this.attemptNumber, running);
			}
			this.attempt = attempt;
			this.attemptNumber = this.attempts;
			return attempt;
		}
		catch (RuntimeException ex) {
			this.attempt = null;
			this.observations.failed("attempt start", this.operation, ex);
			return null;
		}
	}

	/** Runs {@code task} with {@code attempt} current on this thread. */
	@Override
	public <T extends @Nullable Object> T run(@Nullable Object attempt, BackoffTask<T> task) throws Throwable {
		if (!(attempt instanceof Observation observation)) {
			return task.run();
		}
		BackoffObservations.Scoped scoped = this.observations.scope(this.operation, observation);
		try {
			return task.run();
		}
		finally {
			scoped.close();
		}
	}

	@Override
	public synchronized void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
		stopAttempt(AttemptOutcome.RETRIED, failure, delay);
	}

	/**
	 * A copy's own end, while another runs on: a loser cancelled, or a copy that failed. The
	 * copy that ends the call, or is the last to fail before a retry, is reported by the call's
	 * end or {@link #onRetryScheduled} instead, so every other copy has been taken by then.
	 */
	@Override
	public synchronized void onHedge(HedgeEvent event, int attempt, @Nullable Throwable failure) {
		if (event == HedgeEvent.CANCELLED || event == HedgeEvent.FAILED) {
			Observation copy = take(attempt);
			if (copy != null) {
				stop(copy, (event == HedgeEvent.CANCELLED) ? AttemptOutcome.CANCELLED : AttemptOutcome.FAILED, failure,
						null);
			}
		}
	}

	/** @return the observation of a copy still running, no longer followed here; or {@code null} */
	private @Nullable Observation take(int number) {
		if (this.attempt != null && number == this.attemptNumber) {
			Observation last = this.attempt;
			this.attempt = null;
			return last;
		}
		Map<Integer, Observation> overlapping = this.overlapping;
		return (overlapping != null) ? overlapping.remove(number) : null;
	}

	@Override
	public void onSuccess(Outcome outcome, int attempts) {
		end(AttemptOutcome.SUCCESS, null, outcome, attempts);
	}

	@Override
	public void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
		end(AttemptOutcome.FAILED, failure, outcome, attempts);
	}

	private synchronized void end(AttemptOutcome last, @Nullable Throwable failure, Outcome outcome, int attempts) {
		if (this.ended) {
			return;
		}
		this.ended = true;
		stopAttempt(last, failure, null);
		Map<Integer, Observation> overlapping = this.overlapping;
		if (overlapping != null) {
			// Copies the call's end left running (their cancellations are reported first, so none, normally).
			overlapping.values().forEach((copy) -> stop(copy, AttemptOutcome.CANCELLED, null, null));
			overlapping.clear();
		}
		try {
			if (this.call.getContext() instanceof BackoffObservationContext context) {
				context.setOutcome(outcome);
				context.setAttempts(attempts);
			}
			if (failure != null && !cancelledByCaller(outcome, failure)) {
				// As Spring's own observations do: a tracer marks the span failed, the meter
				// handler tags its timer with the failure's class, as the caller got it.
				this.call.error(failure);
			}
			this.call.stop();
		}
		catch (RuntimeException ex) {
			this.observations.failed("call stop", this.operation, ex);
		}
	}

	/**
	 * Whether the caller stopped waiting (cancelled the future or the subscription): nothing
	 * failed, as a cancelled exchange is no error in Spring's HTTP observations.
	 */
	private static boolean cancelledByCaller(Outcome outcome, Throwable failure) {
		return outcome == Outcome.INTERRUPTED && failure instanceof CancellationException;
	}

	/**
	 * Stops the attempt whose end decided what follows, if any (a cancelled call may end between
	 * attempts): the one still running, the last one started or, of a hedged call, the one copy
	 * that no event has taken.
	 */
	private void stopAttempt(AttemptOutcome outcome, @Nullable Throwable failure, @Nullable Duration delay) {
		Observation attempt = this.attempt;
		if (attempt == null) {
			attempt = takeOverlapping();
			if (attempt == null) {
				return;
			}
		}
		this.attempt = null;
		stop(attempt, outcome, failure, delay);
	}

	/** @return a copy started before the last one and still followed, no longer followed; or {@code null} */
	private @Nullable Observation takeOverlapping() {
		Map<Integer, Observation> overlapping = this.overlapping;
		if (overlapping == null || overlapping.isEmpty()) {
			return null;
		}
		Iterator<Observation> copies = overlapping.values().iterator();
		Observation copy = copies.next();
		copies.remove();
		return copy;
	}

	private void stop(Observation attempt, AttemptOutcome outcome, @Nullable Throwable failure,
			@Nullable Duration delay) {
		try {
			if (attempt.getContext() instanceof BackoffAttemptObservationContext context) {
				context.setOutcome(outcome);
				context.setFailure(failure);
				context.setDelay(delay);
			}
			attempt.stop();
		}
		catch (RuntimeException ex) {
			this.observations.failed("attempt stop", this.operation, ex);
		}
	}

}
