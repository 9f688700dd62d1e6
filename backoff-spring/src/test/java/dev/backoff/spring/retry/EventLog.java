package dev.backoff.spring.retry;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;

import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.Outcome;
import dev.backoff.RandomSource;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.BackoffSettings;
import dev.backoff.spring.operation.BackoffOperationSource;
import org.jspecify.annotations.Nullable;

/** The events of the retries that another framework runs, one line each, for the tests to compare. */
final class EventLog implements BackoffListener {

	final List<String> events = new CopyOnWriteArrayList<>();

	final List<Duration> waits = new CopyOnWriteArrayList<>();

	@Override
	public void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
		this.events.add("retry " + attempt + name(failure));
		this.waits.add(delay);
	}

	@Override
	public void onSuccess(Outcome outcome, int attempts) {
		this.events.add("success " + outcome.tagValue() + " after " + attempts);
	}

	@Override
	public void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
		this.events.add("failure " + outcome.tagValue() + " after " + attempts + name(failure));
	}

	/** @return the source of the operations the retries report under, with this log as every one's listener */
	BackoffOperationSource source(BackoffSettings settings, RandomSource random, ScheduledExecutorService scheduler) {
		return BackoffOperationSource.create(BackoffPolicies.of(settings, null, BackoffPolicy.defaults(), null),
				BackoffExecutor.builder().randomSource(random).build(), scheduler, List.of(this), List.of(),
				(value) -> value, null);
	}

	private static String name(@Nullable Throwable failure) {
		return (failure != null) ? " " + failure.getClass().getSimpleName() : "";
	}

}
