package dev.backoff;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Receives the events of calls made by a {@link BackoffExecutor}: every retry scheduled, then
 * exactly one end per call, {@link #onSuccess} or {@link #onFailure}. Metrics and logging
 * implement it; the core knows nothing of either.
 *
 * <p>Called on the thread that runs the attempt, on the hot path: implementations must be
 * fast and thread-safe. One that throws cannot change the call: what it throws is logged once
 * per listener and otherwise ignored. An instance is usually bound to one method, so the
 * events carry no name.
 */
public interface BackoffListener {

	/** A listener that ignores every event. */
	BackoffListener NONE = new BackoffListener() {
	};

	/**
	 * A retry was scheduled: attempt {@code attempt} failed and the next starts after {@code delay}.
	 * @param attempt the number of the attempt that failed, from 1
	 * @param delay the wait before the next attempt
	 * @param failure the attempt's failure, or {@code null} when its result asked for a retry
	 */
	default void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
	}

	/**
	 * The wait after attempt {@code attempt} is the server's hint ({@link RetryAfter}), being
	 * longer than the policy's own delay; {@link #onRetryScheduled} follows with the same wait.
	 * @param attempt the number of the attempt that failed, from 1
	 * @param hint the wait the server asked for
	 */
	default void onRetryAfter(int attempt, Duration hint) {
	}

	/**
	 * The call succeeded.
	 * @param outcome {@link Outcome#SUCCESS} or {@link Outcome#SUCCESS_AFTER_RETRY}
	 * @param attempts the number of attempts made
	 */
	default void onSuccess(Outcome outcome, int attempts) {
	}

	/**
	 * Whether {@link #onSuccess} is for the calls that succeeded without a retry
	 * ({@link Outcome#SUCCESS}) too, the hot path. One that records only the calls that needed
	 * retries says {@code false}, and a {@link #composite} then leaves it out of that path, so
	 * that it costs a successful call nothing; called alone it still hears every success. Asked
	 * once, when the composite is made.
	 * @return {@code true}, by default
	 */
	default boolean hearsSuccessAtOnce() {
		return true;
	}

	/**
	 * The call ended without success.
	 * @param outcome why it ended: any outcome but the two successes
	 * @param attempts the number of attempts made
	 * @param failure the failure passed to the caller, or {@code null} when the last result
	 * asked for a retry and is returned to the caller
	 */
	default void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
	}

	/**
	 * A copy of a {@link Hedging hedged} call was sent, won, was cancelled, or failed while
	 * another ran on.
	 * @param event what happened to the copy
	 * @param attempt the copy's attempt number, from 1 (the first copy of a call is not a hedge)
	 */
	default void onHedge(HedgeEvent event, int attempt) {
	}

	/**
	 * {@link #onHedge(HedgeEvent, int)} with the copy's failure, which is what the executor calls:
	 * by default it calls that method, so a listener implements the one it needs.
	 * @param event what happened to the copy
	 * @param attempt the copy's attempt number, from 1
	 * @param failure for {@link HedgeEvent#FAILED}, the copy's failure, or {@code null} when its
	 * result asked for a retry; {@code null} for the other events
	 */
	default void onHedge(HedgeEvent event, int attempt, @Nullable Throwable failure) {
		onHedge(event, attempt);
	}

	/**
	 * An attempt waits for its slot: the policy's {@link Pacing}, woken by a throttling failure,
	 * allows fewer attempts than are sent. The wait comes after a retry's, adding to it.
	 * @param attempt the attempt's number, from 1
	 * @param wait how long it waits before it is sent
	 */
	default void onPaced(int attempt, Duration wait) {
	}

	/**
	 * @param listeners the listeners to call, in order
	 * @return one listener that calls each of them, so that one that throws does not keep the
	 * event from the others; {@link #NONE} for none, the listener itself for one
	 */
	static BackoffListener composite(List<? extends BackoffListener> listeners) {
		if (listeners.isEmpty()) {
			return NONE;
		}
		if (listeners.size() == 1) {
			return listeners.get(0);
		}
		return new CompositeListener(listeners.toArray(new BackoffListener[0]));
	}

}
