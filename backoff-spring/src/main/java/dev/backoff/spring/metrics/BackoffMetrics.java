package dev.backoff.spring.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.HedgeEvent;
import dev.backoff.Outcome;
import dev.backoff.OverloadControls;
import dev.backoff.spring.operation.BackoffCallCounts;
import dev.backoff.spring.operation.BackoffListenerFactory;
import dev.backoff.spring.operation.BackoffOperation;
import dev.backoff.spring.operation.ExceptionTags;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.core.instrument.step.StepMeterRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Records the meters of every {@code @Backoff} method, tagged with bounded values only:
 * {@code policy}, {@code method} ({@code SimpleClassName.methodName}), {@code outcome} and
 * {@code exception} (a simple class name, at most {@value ExceptionTags#LIMIT} per method, then
 * {@value ExceptionTags#OTHER}: see {@link ExceptionTags}). Never an argument, a message or an attempt number.
 *
 * <ul>
 * <li>{@value #CALLS} (counter: policy, method, outcome): calls by how they ended.</li>
 * <li>{@value #RETRIES} (counter: policy, method, exception): retries, by the failure that
 * caused them ({@code none} when a result asked for the retry).</li>
 * <li>{@value #DELAY} (timer: policy, method): every wait actually scheduled; beside it, from
 * the first wait, {@value DelayCeiling#NAME}, the longest its schedule can draw
 * ({@link DelayCeiling}).</li>
 * <li>{@value #RETRY_AFTER} (timer: policy, method): the waits that a server's hint
 * ({@code Retry-After}) set, being longer than the policy's own delay.</li>
 * <li>{@value #ATTEMPTS} (distribution summary: policy, method, outcome): attempts per call,
 * every copy of a hedged call among them; of {@code success}, only the calls that sent hedges
 * (one without is one attempt, and costs nothing more to count).</li>
 * <li>{@value #HEDGES} (counter: policy, method, event): copies of hedged calls sent, won,
 * cancelled, or failed while another ran.</li>
 * </ul>
 * A meter is registered the first time it has something to record, with one exception where
 * the registry needs it ({@link #registersFailuresAtZero()}): when a method's first call ends,
 * its {@value #CALLS} counter of every failure outcome (all but the two successes) is
 * registered, at 0, before that call's is incremented, and so are its {@value #HEDGES} counters
 * when its policy hedges and its {@value #RETRY_AFTER} timer when it retries (any failure may
 * carry a server's hint). A counter born at 1 is a first increase
 * that Prometheus's {@code increase()} and {@code rate()} cannot see, so without it a method's
 * first failure of a kind would never fire an alert; this way only the outcome of its very first
 * call is born at 1 (see docs/observability.md). The rest come on first use: an outcome's
 * counter and summary when a call first ends so, the timer at the first wait, a retries counter
 * at the first retry for its exception. So a method never called has no meter. After that a
 * call only increments or records, and a success on the first attempt costs one counter
 * increment.
 */
public class BackoffMetrics implements BackoffListenerFactory, BackoffCallCounts {

	/** Calls, by outcome. */
	public static final String CALLS = "backoff.calls";

	/** Retries, by the failure that caused them. */
	public static final String RETRIES = "backoff.retries";

	/** Waits actually scheduled. */
	public static final String DELAY = "backoff.delay";

	/** The waits that a server's {@code Retry-After} hint set. */
	public static final String RETRY_AFTER = "backoff.retry.after";

	/** Attempts per call. */
	public static final String ATTEMPTS = "backoff.attempts";

	/** Copies of hedged calls, by event: sent, won, cancelled, failed. */
	public static final String HEDGES = "backoff.hedges";

	/** The outcomes whose counters may be registered at 0: every one but the successes. */
	private static final Outcome[] FAILURES = Stream.of(Outcome.values())
		.filter((outcome) -> !outcome.isSuccess())
		.toArray(Outcome[]::new);

	/** The {@code outcome} tag of each outcome, by {@link Outcome#ordinal()}. */
	private static final Tag[] OUTCOME_TAGS = Stream.of(Outcome.values())
		.map((outcome) -> Tag.of("outcome", outcome.tagValue()))
		.toArray(Tag[]::new);

	private final MeterRegistry registry;

	private final @Nullable Boolean failuresAtZero;

	/**
	 * Failure counters registered at 0 where the registry needs them (see
	 * {@link #registersFailuresAtZero()}).
	 * @param registry the registry to record into
	 */
	public BackoffMetrics(MeterRegistry registry) {
		this(registry, null);
	}

	/**
	 * @param registry the registry to record into
	 * @param failuresAtZero whether a called method's failure counters are registered at 0
	 * ({@code backoff.metrics.failures-at-zero}), or {@code null} to decide by the registry
	 */
	public BackoffMetrics(MeterRegistry registry, @Nullable Boolean failuresAtZero) {
		this.registry = registry;
		this.failuresAtZero = failuresAtZero;
	}

	@Override
	public BackoffListener create(BackoffOperation operation) {
		return new MeteredListener(this, operation);
	}

	/**
	 * Whether, when a method's first call ends, its {@value #CALLS} counters of the failure
	 * outcomes are registered at 0: as {@code backoff.metrics.failures-at-zero} says, or, when it
	 * is not set, when a registry reports totals from which a monitoring system reads increases
	 * (Prometheus's, OTLP's): a counter born at 1 hides its first increase there. Not for a
	 * {@link SimpleMeterRegistry}, read in the process (the actuator's {@code metrics} endpoint),
	 * nor a {@link StepMeterRegistry}, which publishes each step's increase, so that a first
	 * increment is seen; there the counters would only cost heap (about 270 B each). Asked as
	 * each method's first call ends, so that registries added to a composite until then count.
	 * @return whether the failure counters are registered at 0
	 */
	public boolean registersFailuresAtZero() {
		return (this.failuresAtZero != null) ? this.failuresAtZero : readsIncreases(this.registry);
	}

	private static boolean readsIncreases(MeterRegistry registry) {
		if (registry instanceof CompositeMeterRegistry composite) {
			return composite.getRegistries().stream().anyMatch(BackoffMetrics::readsIncreases);
		}
		return !(registry instanceof SimpleMeterRegistry) && !(registry instanceof StepMeterRegistry);
	}

	@Override
	public Map<String, Long> get(BackoffOperation operation) {
		Map<String, Long> counts = new TreeMap<>();
		for (Counter counter : this.registry.find(CALLS)
			.tags("policy", operation.getPolicyName(), "method", operation.getMethodTag())
			.counters()) {
			// The outcomes registered at 0 have not happened: they stay out, as before they were.
			long count = (long) counter.count();
			if (count > 0) {
				counts.merge(String.valueOf(counter.getId().getTag("outcome")), count, Long::sum);
			}
		}
		return counts;
	}

	/**
	 * Registers each meter of one method the first time it is needed. Every meter is kept in a
	 * plain field or array slot, {@code null} until then, so that afterwards recording is a field
	 * read. The fields are written without locking: two threads that both find one {@code null}
	 * both register, and Micrometer's registration is idempotent (the same id returns the same
	 * meter), so both record into that one meter and the field only ever holds it.
	 */
	private static final class MeteredListener implements BackoffListener {

		private final BackoffMetrics metrics;

		private final BackoffOperation operation;

		// The arrays and the map are made on first use too, the same way: a method never called
		// holds only this listener, and an application may have thousands.

		/** By {@link Outcome#ordinal()}. */
		private @Nullable Counter @Nullable [] calls;

		/** By {@link Outcome#ordinal()}; the slot of {@code success} stays {@code null}. */
		private @Nullable DistributionSummary @Nullable [] attempts;

		private @Nullable Timer delay;

		private @Nullable Timer retryAfter;

		private @Nullable Map<String, Counter> retries;

		private @Nullable Counter resultRetries;

		/** By {@link HedgeEvent#ordinal()}. */
		private @Nullable Counter @Nullable [] hedges;

		/**
		 * The method's tags, made on first use and shared by its meters, as the outcome tags
		 * are shared by every method's: each counter then holds only its own small array,
		 * about a fifth less heap per counter. Volatile: read only as meters are registered.
		 */
		private volatile @Nullable Tags tags;

		MeteredListener(BackoffMetrics metrics, BackoffOperation operation) {
			this.metrics = metrics;
			this.operation = operation;
		}

		private Tags tags() {
			Tags tags = this.tags;
			if (tags == null) {
				tags = Tags.of("policy", this.operation.getPolicyName(), "method", this.operation.getMethodTag());
				this.tags = tags;
			}
			return tags;
		}

		@Override
		public void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
			delay().record(delay);
			retries(failure).increment();
		}

		@Override
		public void onRetryAfter(int attempt, Duration hint) {
			retryAfter().record(hint);
		}

		@Override
		public void onSuccess(Outcome outcome, int attempts) {
			ended(outcome, attempts);
		}

		@Override
		public void onHedge(HedgeEvent event, int attempt) {
			hedges(event).increment();
		}

		private Counter hedges(HedgeEvent event) {
			Counter[] hedges = this.hedges;
			if (hedges == null) {
				hedges = new Counter[HedgeEvent.values().length];
				this.hedges = hedges;
			}
			Counter counter = hedges[event.ordinal()];
			if (counter == null) {
				counter = Counter.builder(HEDGES)
					.description("Copies of hedged calls under a Backoff policy: sent, won, cancelled, failed, held back by the cap")
					.tags(tags().and("event", event.tagValue()))
					.register(this.metrics.registry);
				hedges[event.ordinal()] = counter;
			}
			return counter;
		}

		@Override
		public void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
			ended(outcome, attempts);
		}

		private void ended(Outcome outcome, int attempts) {
			Counter[] calls = this.calls;
			Counter counter = (calls != null) ? calls[outcome.ordinal()] : null;
			if (counter == null) {
				counter = registerCalls(outcome);
			}
			counter.increment();
			// A hedged success records its copies too: each was load on the dependency.
			if (outcome != Outcome.SUCCESS || attempts > 1) {
				DistributionSummary[] summaries = this.attempts;
				DistributionSummary summary = (summaries != null) ? summaries[outcome.ordinal()] : null;
				if (summary == null) {
					summary = registerAttempts(outcome);
				}
				summary.record(attempts);
			}
		}

		/**
		 * Registers the outcome's counter; the first time a call ends, where the registry needs
		 * them, the failures' at 0 too, and the meters of the method's rarer events.
		 */
		private Counter registerCalls(Outcome outcome) {
			Counter[] calls = this.calls;
			if (calls == null) {
				calls = new Counter[Outcome.values().length];
				if (this.metrics.registersFailuresAtZero()) {
					for (Outcome failure : FAILURES) {
						// A local rejection only where the policy in force has admission, as hedges where it hedges.
						if (failure != Outcome.ADMISSION_REJECTED || admits()) {
							calls[failure.ordinal()] = callsCounter(failure);
						}
					}
					registerRareEventsAtZero();
				}
				this.calls = calls;
			}
			// Into this thread's array or another's, whose slots this thread may not see filled yet.
			Counter counter = callsCounter(outcome);
			calls[outcome.ordinal()] = counter;
			return counter;
		}

		/**
		 * Hedges and server-set waits may come long after a method's first call; at 0 from then
		 * on, their first is an increase too. As the policy in force stands: one changed to hedge
		 * later has its hedge counters from its first hedge.
		 */
		private void registerRareEventsAtZero() {
			BackoffPolicy policy = this.operation.getPolicy();
			if (policy.getHedging().isEnabled()) {
				for (HedgeEvent event : HedgeEvent.values()) {
					hedges(event);
				}
			}
			if (policy.getSchedule().getMaxAttempts() > 1) {
				retryAfter();
			}
		}

		private boolean admits() {
			OverloadControls controls = this.operation.getControls();
			return controls != null && controls.getAdmission() != null;
		}

		private Counter callsCounter(Outcome outcome) {
			return Counter.builder(CALLS)
				.description("Calls under a Backoff policy (@Backoff methods, HTTP clients), by how they ended")
				.tags(tags().and(OUTCOME_TAGS[outcome.ordinal()]))
				.register(this.metrics.registry);
		}

		private DistributionSummary registerAttempts(Outcome outcome) {
			DistributionSummary summary = DistributionSummary.builder(ATTEMPTS)
				.description("Attempts per call under a Backoff policy, the first included")
				.tags(tags().and(OUTCOME_TAGS[outcome.ordinal()]))
				.register(this.metrics.registry);
			DistributionSummary[] summaries = this.attempts;
			if (summaries == null) {
				summaries = new DistributionSummary[Outcome.values().length];
				this.attempts = summaries;
			}
			summaries[outcome.ordinal()] = summary;
			return summary;
		}

		private Timer delay() {
			Timer delay = this.delay;
			if (delay == null) {
				delay = Timer.builder(DELAY)
					.description("Waits scheduled before retries under a Backoff policy")
					.tags(tags())
					.register(this.metrics.registry);
				DelayCeiling.register(this.metrics.registry, tags(), this.operation);
				this.delay = delay;
			}
			return delay;
		}

		private Timer retryAfter() {
			Timer retryAfter = this.retryAfter;
			if (retryAfter == null) {
				retryAfter = Timer.builder(RETRY_AFTER)
					.description("Waits before retries that a server's Retry-After hint set, under a Backoff policy")
					.tags(tags())
					.register(this.metrics.registry);
				this.retryAfter = retryAfter;
			}
			return retryAfter;
		}

		private Counter retries(@Nullable Throwable failure) {
			if (failure == null) {
				Counter counter = this.resultRetries;
				if (counter == null) {
					counter = retriesCounter(this.operation.getExceptionTag(null));
					this.resultRetries = counter;
				}
				return counter;
			}
			// The tag is the operation's, bounded per method and the same as the observations'
			// exception key; a counter per tag value, registered on first sight.
			String exception = this.operation.getExceptionTag(failure);
			Map<String, Counter> retries = this.retries;
			if (retries == null) {
				retries = new ConcurrentHashMap<>();
				this.retries = retries;
			}
			Counter counter = retries.get(exception);
			return (counter != null) ? counter : retries.computeIfAbsent(exception, this::retriesCounter);
		}

		private Counter retriesCounter(String exception) {
			return Counter.builder(RETRIES)
				.description("Retries under a Backoff policy, by the failure that caused them")
				.tags(tags().and("exception", exception))
				.register(this.metrics.registry);
		}

	}

}
