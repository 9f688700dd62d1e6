package dev.backoff.autoconfigure.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import dev.backoff.BackoffListener;
import dev.backoff.Outcome;
import dev.backoff.autoconfigure.BackoffCallCounts;
import dev.backoff.autoconfigure.BackoffListenerFactory;
import dev.backoff.autoconfigure.BackoffOperation;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Records the meters of every {@code @Backoff} method, tagged with bounded values only:
 * {@code policy}, {@code method} ({@code SimpleClassName.methodName}), {@code outcome} and
 * {@code exception} (a simple class name). Never an argument, a message or an attempt number.
 *
 * <ul>
 * <li>{@value #CALLS} (counter: policy, method, outcome): calls by how they ended.</li>
 * <li>{@value #RETRIES} (counter: policy, method, exception): retries, by the failure that
 * caused them ({@code none} when a result asked for the retry).</li>
 * <li>{@value #DELAY} (timer: policy, method): every wait actually scheduled.</li>
 * <li>{@value #ATTEMPTS} (distribution summary: policy, method, outcome): attempts per call,
 * for every outcome but {@code success}, which is one attempt by definition.</li>
 * </ul>
 * Meters are registered once per method, at start-up; a call only increments or records, and
 * a success on the first attempt costs one counter increment.
 */
public class BackoffMetrics implements BackoffListenerFactory, BackoffCallCounts {

	/** Calls, by outcome. */
	public static final String CALLS = "backoff.calls";

	/** Retries, by the failure that caused them. */
	public static final String RETRIES = "backoff.retries";

	/** Waits actually scheduled. */
	public static final String DELAY = "backoff.delay";

	/** Attempts per call. */
	public static final String ATTEMPTS = "backoff.attempts";

	/** The {@code exception} tag of a retry asked for by a result. */
	static final String NO_EXCEPTION = "none";

	private final MeterRegistry registry;

	/**
	 * @param registry the registry to record into
	 */
	public BackoffMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public BackoffListener create(BackoffOperation operation) {
		return new MeteredListener(this.registry,
				Tags.of("policy", operation.getPolicyName(), "method", operation.getMethodTag()),
				operation.getBudget() != null);
	}

	@Override
	public Map<String, Long> get(BackoffOperation operation) {
		Map<String, Long> counts = new TreeMap<>();
		for (Counter counter : this.registry.find(CALLS)
			.tags("policy", operation.getPolicyName(), "method", operation.getMethodTag())
			.counters()) {
			counts.merge(String.valueOf(counter.getId().getTag("outcome")), (long) counter.count(), Long::sum);
		}
		return counts;
	}

	private static final class MeteredListener implements BackoffListener {

		private final MeterRegistry registry;

		private final Tags tags;

		private final @Nullable Counter[] calls;

		private final @Nullable DistributionSummary[] attempts;

		private final Timer delay;

		private final Map<Class<?>, Counter> retries = new ConcurrentHashMap<>();

		private @Nullable Counter resultRetries;

		MeteredListener(MeterRegistry registry, Tags tags, boolean budgeted) {
			this.registry = registry;
			this.tags = tags;
			Outcome[] outcomes = Outcome.values();
			this.calls = new Counter[outcomes.length];
			this.attempts = new DistributionSummary[outcomes.length];
			for (Outcome outcome : outcomes) {
				// A policy without a budget never ends a call so: no series for it.
				if (outcome != Outcome.BUDGET_EXHAUSTED || budgeted) {
					register(outcome);
				}
			}
			this.delay = Timer.builder(DELAY)
				.description("Waits scheduled before retries of @Backoff methods")
				.tags(tags)
				.register(registry);
		}

		@Override
		public void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
			this.delay.record(delay);
			retries(failure).increment();
		}

		@Override
		public void onSuccess(Outcome outcome, int attempts) {
			ended(outcome, attempts);
		}

		@Override
		public void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
			ended(outcome, attempts);
		}

		private void ended(Outcome outcome, int attempts) {
			Counter calls = this.calls[outcome.ordinal()];
			if (calls == null) {
				// Not expected (see the constructor); registering is idempotent, so a race is harmless.
				calls = register(outcome);
			}
			calls.increment();
			DistributionSummary summary = this.attempts[outcome.ordinal()];
			if (summary != null) {
				summary.record(attempts);
			}
		}

		private Counter register(Outcome outcome) {
			Tags outcomeTags = this.tags.and("outcome", outcome.tagValue());
			if (outcome != Outcome.SUCCESS) {
				this.attempts[outcome.ordinal()] = DistributionSummary.builder(ATTEMPTS)
					.description("Attempts per call of @Backoff methods, the first included")
					.tags(outcomeTags)
					.register(this.registry);
			}
			Counter calls = Counter.builder(CALLS)
				.description("Calls of @Backoff methods, by how they ended")
				.tags(outcomeTags)
				.register(this.registry);
			this.calls[outcome.ordinal()] = calls;
			return calls;
		}

		private Counter retries(@Nullable Throwable failure) {
			if (failure == null) {
				Counter counter = this.resultRetries;
				if (counter == null) {
					counter = retriesCounter(NO_EXCEPTION);
					this.resultRetries = counter;
				}
				return counter;
			}
			// Bounded by the exception types the method throws; registered on first sight.
			return this.retries.computeIfAbsent(failure.getClass(), (type) -> retriesCounter(type.getSimpleName()));
		}

		private Counter retriesCounter(String exception) {
			return Counter.builder(RETRIES)
				.description("Retries of @Backoff methods, by the failure that caused them")
				.tags(this.tags.and("exception", exception))
				.register(this.registry);
		}

	}

}
