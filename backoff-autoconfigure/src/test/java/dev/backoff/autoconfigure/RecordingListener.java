package dev.backoff.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.backoff.BackoffListener;
import dev.backoff.Outcome;
import org.jspecify.annotations.Nullable;

/**
 * A {@link BackoffListener} that records every event, in order, as a value that tests can
 * compare with {@code containsExactly}. Thread-safe: asynchronous calls report from the
 * scheduler's threads.
 */
class RecordingListener implements BackoffListener {

	private final List<Event> events = new CopyOnWriteArrayList<>();

	@Override
	public void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
		this.events.add(new RetryScheduled(attempt, delay, failure));
	}

	@Override
	public void onSuccess(Outcome outcome, int attempts) {
		this.events.add(new Success(outcome, attempts));
	}

	@Override
	public void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
		this.events.add(new Failure(outcome, attempts, failure));
	}

	List<Event> events() {
		return this.events;
	}

	/** @return the end events ({@link Success} and {@link Failure}): exactly one per call */
	List<Event> ends() {
		return this.events.stream().filter((event) -> !(event instanceof RetryScheduled)).toList();
	}

	sealed interface Event permits RetryScheduled, Success, Failure {

	}

	record RetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) implements Event {

	}

	record Success(Outcome outcome, int attempts) implements Event {

	}

	record Failure(Outcome outcome, int attempts, @Nullable Throwable failure) implements Event {

	}

}
