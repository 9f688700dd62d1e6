package dev.backoff;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;

/**
 * A {@link BackoffListener} that records every event, in order, as a value that tests can
 * compare with {@code containsExactly}. Failures compare by identity. Thread-safe: asynchronous
 * calls report from the scheduler's threads. Shared with the other modules' tests through this
 * module's test jar.
 */
public class RecordingListener implements BackoffListener {

	private final List<Event> events = new CopyOnWriteArrayList<>();

	@Override
	public void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
		this.events.add(new RetryScheduled(attempt, delay, failure));
	}

	@Override
	public void onRetryAfter(int attempt, Duration hint) {
		this.events.add(new RetryAfterHint(attempt, hint));
	}

	@Override
	public void onSuccess(Outcome outcome, int attempts) {
		this.events.add(new Success(outcome, attempts));
	}

	@Override
	public void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
		this.events.add(new Failure(outcome, attempts, failure));
	}

	@Override
	public void onHedge(HedgeEvent event, int attempt) {
		this.events.add(new Hedge(event, attempt));
	}

	public List<Event> events() {
		return this.events;
	}

	/** @return the delays of the retries scheduled, in order */
	public List<Duration> delays() {
		return this.events.stream()
			.filter(RetryScheduled.class::isInstance)
			.map((event) -> ((RetryScheduled) event).delay())
			.toList();
	}

	/** @return the end events ({@link Success} and {@link Failure}), which must be exactly one per call */
	public List<Event> ends() {
		return this.events.stream().filter((event) -> event instanceof Success || event instanceof Failure).toList();
	}

	public sealed interface Event permits RetryScheduled, RetryAfterHint, Success, Failure, Hedge {

	}

	public record RetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) implements Event {

	}

	/** The wait after {@code attempt} is the server's {@code hint}. */
	public record RetryAfterHint(int attempt, Duration hint) implements Event {

	}

	public record Success(Outcome outcome, int attempts) implements Event {

	}

	public record Failure(Outcome outcome, int attempts, @Nullable Throwable failure) implements Event {

	}

	public record Hedge(HedgeEvent event, int attempt) implements Event {

	}

}
