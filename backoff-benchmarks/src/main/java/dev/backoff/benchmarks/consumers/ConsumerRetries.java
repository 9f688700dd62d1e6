package dev.backoff.benchmarks.consumers;

import java.time.Duration;
import java.util.random.RandomGenerator;

import dev.backoff.BackoffCall;
import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.Jitter;
import dev.backoff.Outcome;
import dev.backoff.RetryBudget;
import org.jspecify.annotations.Nullable;

import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.util.backoff.FixedBackOff;

/**
 * How a consumer retries a record that failed: the variants that {@link ConsumerGroupModel}
 * compares, each a cycle per record as Spring Kafka's {@code DefaultErrorHandler} runs one
 * (its {@code BackOff} started at the record's first failure, asked after each failed
 * delivery for the wait before the next, {@code STOP} sending the record to the dead-letter
 * topic).
 *
 * <p>Every variant allows {@link #MAX_ATTEMPTS} deliveries of a record: Spring Kafka's default
 * {@code FixedBackOff(0, 9)}, and the exponential ones from 1 s, doubling, capped at 30 s.
 */
public final class ConsumerRetries {

	/** Deliveries of a record, the first included: Spring Kafka's default, nine retries. */
	public static final int MAX_ATTEMPTS = 10;

	/** The exponential variants' first wait. */
	public static final Duration BASE_DELAY = Duration.ofSeconds(1);

	/** The exponential variants' cap. */
	public static final Duration MAX_DELAY = Duration.ofSeconds(30);

	/** What a cycle's {@code failed()} returns when the retry budget refused the retry. */
	static final long REFUSED = -2;

	/** Framework 7's {@code ExponentialBackOff} jitter, in milliseconds, at the first interval. */
	public static final long FRAMEWORK_JITTER_MS = 500;

	private ConsumerRetries() {
	}

	/** A variant: a back-off, with or without a retry budget. */
	public enum Variant {

		/** Spring Kafka's default: {@code new FixedBackOff(0, 9)}, ten deliveries, no wait. */
		FIXED("FixedBackOff(0, 9)", null, false),

		/**
		 * Framework 7's {@code ExponentialBackOff(1000, 2)}, max interval 30 s, jitter 500 ms,
		 * max attempts 9: its jitter is ± a share of the interval and never below the first.
		 */
		FRAMEWORK("ExponentialBackOff, jitter", null, false),

		/** Backoff's policy with full jitter, no budget. */
		FULL("full jitter", Jitter.FULL, false),

		/** Backoff's policy with full jitter and a default retry budget per instance. */
		FULL_BUDGET("full jitter, budget", Jitter.FULL, true),

		/** Backoff's policy with decorrelated jitter, no budget. */
		DECORRELATED("decorrelated jitter", Jitter.DECORRELATED, false),

		/** Backoff's policy with decorrelated jitter and a default retry budget per instance. */
		DECORRELATED_BUDGET("decorrelated jitter, budget", Jitter.DECORRELATED, true),

		/**
		 * {@link #FULL_BUDGET} in outage mode: a record whose retry the budget refuses is not
		 * dead-lettered; its partition is held by the instance's {@code OutageGate}.
		 */
		OUTAGE("outage mode", Jitter.FULL, true),

		/**
		 * Resilience4j's pattern: Spring Kafka's default {@code FixedBackOff(0, 9)} behind a
		 * circuit breaker per instance that pauses the whole container ({@link PausingBreaker}).
		 */
		BREAKER("Resilience4j circuit breaker", null, false);

		private final String label;

		private final @Nullable Jitter jitter;

		private final boolean budget;

		Variant(String label, @Nullable Jitter jitter, boolean budget) {
			this.label = label;
			this.jitter = jitter;
			this.budget = budget;
		}

		/** @return the name in the table, the CSV and the chart */
		public String label() {
			return this.label;
		}

		/** @return whether the consumers of an instance share a {@link RetryBudget} */
		public boolean hasBudget() {
			return this.budget;
		}

		/** @return whether a refused retry holds the record's partition instead of dead-lettering the record */
		public boolean isOutageMode() {
			return this == OUTAGE;
		}

		/** @return whether a circuit breaker per instance pauses its container */
		public boolean isCircuitBreaker() {
			return this == BREAKER;
		}

		/** @return Backoff's policy of this variant, or {@code null} for Spring's back-offs */
		public @Nullable BackoffPolicy policy() {
			Jitter jitter = this.jitter;
			return (jitter != null) ? BackoffPolicy.builder()
				.maxAttempts(MAX_ATTEMPTS)
				.baseDelay(BASE_DELAY)
				.maxDelay(MAX_DELAY)
				.multiplier(2.0)
				.jitter(jitter)
				.build() : null;
		}

	}

	/** One record's retries: told of each delivery's outcome, it says what follows a failure. */
	interface Cycle {

		/**
		 * @return the wait in milliseconds before the record's next delivery, or
		 * {@link BackOffExecution#STOP} to send it to the dead-letter topic ({@link #REFUSED}
		 * when the budget refused the retry)
		 */
		long failed();

		/** The record's last delivery succeeded. */
		void succeeded();

	}

	/**
	 * @param jitterMs the jitter: {@link #FRAMEWORK_JITTER_MS}, or 0 for the bare intervals
	 * @return Framework 7's {@code ExponentialBackOff} as {@link Variant#FRAMEWORK} sets it
	 */
	static ExponentialBackOff frameworkBackOff(long jitterMs) {
		ExponentialBackOff backOff = new ExponentialBackOff(BASE_DELAY.toMillis(), 2.0);
		backOff.setMaxInterval(MAX_DELAY.toMillis());
		backOff.setMaxAttempts(MAX_ATTEMPTS - 1);
		backOff.setJitter(jitterMs);
		return backOff;
	}

	/** A cycle of Spring's {@code BackOff}, started at the first failure as the error handler does. */
	static Cycle spring(Variant variant, RandomGenerator random) {
		return new Cycle() {

			private @Nullable BackOffExecution execution;

			@Override
			public long failed() {
				BackOffExecution execution = this.execution;
				if (execution == null) {
					execution = (variant == Variant.FIXED || variant == Variant.BREAKER) ? new FixedBackOff(0, MAX_ATTEMPTS - 1).start()
							: new SeededJitter(frameworkBackOff(0).start(), random);
					this.execution = execution;
				}
				return execution.nextBackOff();
			}

			@Override
			public void succeeded() {
			}

		};
	}

	/**
	 * A cycle of Backoff's own retry decisions: a {@link BackoffCall} of the consumer's
	 * executor (its virtual clock and generator), with the instance's budget if any.
	 */
	static Cycle backoff(BackoffExecutor executor, BackoffPolicy policy, @Nullable RetryBudget budget) {
		BackoffCall call = executor.start(policy, budget, BackoffListener.NONE, null);
		call.beginAttempt();
		return new Cycle() {

			@Override
			public long failed() {
				DeliveryFailed failure = new DeliveryFailed();
				Duration delay = call.nextDelay(failure);
				if (delay == null) {
					call.end(failure);
					return (call.getOutcome() == Outcome.BUDGET_EXHAUSTED) ? REFUSED : BackOffExecution.STOP;
				}
				call.beginAttempt();
				return delay.toMillis();
			}

			@Override
			public void succeeded() {
				call.succeed();
			}

		};
	}

	/**
	 * Framework 7's {@code ExponentialBackOff} jitter drawn from a seeded generator. The real
	 * class draws it from {@code Math.random()}, which no seed reaches, so a run could not be
	 * repeated: the real execution (its jitter 0) gives the interval and the {@code STOP}, and
	 * this applies the jitter of {@code ExponentialBackOffExecution.applyJitter} (spring-core
	 * 7.0.x) to it: the jitter scaled by {@code interval / initialInterval}, the result within
	 * {@code [max(interval - scaled, initialInterval), min(interval + scaled, maxInterval)]}.
	 * {@code ConsumerGroupModelTests} checks it against the real class's own draws.
	 */
	static final class SeededJitter implements BackOffExecution {

		private final BackOffExecution intervals;

		private final RandomGenerator random;

		SeededJitter(BackOffExecution intervals, RandomGenerator random) {
			this.intervals = intervals;
			this.random = random;
		}

		@Override
		public long nextBackOff() {
			long interval = this.intervals.nextBackOff();
			if (interval == STOP) {
				return STOP;
			}
			long[] range = jitterRange(interval);
			return Math.min(range[0] + (long) (this.random.nextDouble() * (range[1] - range[0])), MAX_DELAY.toMillis());
		}

		/** @return the lowest and highest wait Framework's jitter draws around {@code interval} */
		static long[] jitterRange(long interval) {
			long initial = BASE_DELAY.toMillis();
			long scaled = FRAMEWORK_JITTER_MS * (interval / initial);
			return new long[] { Math.max(interval - scaled, initial), Math.min(interval + scaled, MAX_DELAY.toMillis()) };
		}

	}

	/** A failed delivery, as the listener sees it: cheap, no stack trace. */
	static final class DeliveryFailed extends Exception {

		DeliveryFailed() {
			super("503 Service Unavailable (simulated)", null, false, false);
		}

	}

}
