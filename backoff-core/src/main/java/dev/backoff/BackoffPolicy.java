package dev.backoff;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * A retry policy: a {@link BackoffSchedule} (how many attempts, how long to wait between
 * them), {@link RetryRules} (which failures or results are worth another attempt) and
 * {@link Hedging}. An immutable value: a {@link RetryBudget} is kept beside a policy, never
 * inside it. Made with {@link #builder()}, for example
 * {@code BackoffPolicy.builder().maxAttempts(5).retryOn(IOException.class).build()};
 * {@link Builder#build()} rejects invalid values with an {@link InvalidPolicyException}
 * naming the setting, the value and the rule.
 * @see BackoffExecutor
 */
public final class BackoffPolicy {

	/** Default {@code maxAttempts}: one call and two retries. */
	public static final int DEFAULT_MAX_ATTEMPTS = 3;

	/** Default {@code baseDelay}: the first retry's ceiling. */
	public static final Duration DEFAULT_BASE_DELAY = Duration.ofMillis(100);

	/** Default {@code multiplier}: each ceiling doubles. */
	public static final double DEFAULT_MULTIPLIER = 2.0;

	/** Default {@code maxDelay}: the cap of every delay. */
	public static final Duration DEFAULT_MAX_DELAY = Duration.ofSeconds(20);

	/** Default {@code jitter}. */
	public static final Jitter DEFAULT_JITTER = Jitter.FULL;

	/** The longest duration a policy accepts: {@link Long#MAX_VALUE} nanoseconds (about 292 years). */
	public static final Duration MAX_DURATION = Duration.ofNanos(Long.MAX_VALUE);

	private static final BackoffPolicy DEFAULTS = builder().build();

	private final BackoffSchedule schedule;
	private final RetryRules rules;
	private final long maxRetryAfterNanos;
	private final Hedging hedging;

	private BackoffPolicy(BackoffSchedule schedule, RetryRules rules, Hedging hedging) {
		this.schedule = schedule;
		this.rules = rules;
		this.hedging = hedging;
		Duration maxRetryAfter = rules.getMaxRetryAfter();
		BackoffSchedule throttling = schedule.getThrottling();
		// Unset: the longest cap the policy has, so that a throttling server's hint within it is honoured.
		this.maxRetryAfterNanos = (maxRetryAfter != null) ? maxRetryAfter.toNanos()
				: (throttling != null) ? throttling.maxDelayNanos() : schedule.maxDelayNanos();
	}

	/** @return a builder holding the defaults */
	public static Builder builder() {
		return new Builder();
	}

	/** @return the policy with every default ({@code DEFAULT_*}) */
	public static BackoffPolicy defaults() {
		return DEFAULTS;
	}

	/** @return a builder that starts from this policy's settings */
	public Builder toBuilder() {
		return new Builder(this);
	}

	/** @return when to retry: the attempts and the waits between them */
	public BackoffSchedule getSchedule() {
		return this.schedule;
	}

	/** @return whether to retry: the failures, results and hints worth another attempt */
	public RetryRules getRules() {
		return this.rules;
	}

	/** @return the longest {@link RetryAfter} hint honoured: the one set, else the longest cap */
	public Duration getMaxRetryAfter() {
		return Duration.ofNanos(this.maxRetryAfterNanos);
	}

	/** @return how long one attempt of a non-blocking call may take, or {@code null}: the rules' setting */
	public @Nullable Duration getAttemptTimeout() {
		return this.rules.getAttemptTimeout();
	}

	/** @return when copies of a non-blocking call overlap; {@link Hedging#isEnabled() off} by default */
	public Hedging getHedging() {
		return this.hedging;
	}

	long maxRetryAfterNanos() {
		return this.maxRetryAfterNanos;
	}

	@Override
	public String toString() {
		return "BackoffPolicy[" + this.schedule + this.rules + this.hedging + "]";
	}

	/** Builds a {@link BackoffPolicy}; starts from the defaults. Not thread-safe. */
	public static final class Builder {

		private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
		private @Nullable Duration baseDelay = DEFAULT_BASE_DELAY;
		private @Nullable Duration maxDelay = DEFAULT_MAX_DELAY;
		private double multiplier = DEFAULT_MULTIPLIER;
		private @Nullable Jitter jitter = DEFAULT_JITTER;
		private @Nullable Duration throttleBaseDelay;
		private @Nullable Duration throttleMaxDelay;
		private @Nullable Duration maxElapsed;
		private @Nullable Duration attemptTimeout;
		private final Set<Class<? extends Throwable>> retryOn = new LinkedHashSet<>();
		private final Set<Class<? extends Throwable>> abortOn = new LinkedHashSet<>();
		private final Set<Class<? extends Throwable>> throttleOn = new LinkedHashSet<>();
		private Predicate<? super Throwable> throttledByDefault = (failure) -> false;
		private @Nullable Predicate<@Nullable Object> retryIfResult;
		private Predicate<? super Throwable> retryableByDefault = (failure) -> failure instanceof Exception;
		private @Nullable Predicate<? super Throwable> retryOnException;
		private Function<? super Throwable, ? extends @Nullable Duration> retryAfter = RetryAfter::of;
		private @Nullable Duration maxRetryAfter;
		private @Nullable Duration hedgeDelay;
		private int maxHedges;
		private @Nullable Double hedgePercentile;

		private Builder() {
		}

		private Builder(BackoffPolicy policy) {
			BackoffSchedule schedule = policy.schedule;
			RetryRules rules = policy.rules;
			this.maxAttempts = schedule.getMaxAttempts();
			this.baseDelay = schedule.getBaseDelay();
			this.maxDelay = schedule.getMaxDelay();
			this.multiplier = schedule.getMultiplier();
			this.jitter = schedule.getJitter();
			this.maxElapsed = rules.getMaxElapsed();
			this.attemptTimeout = rules.getAttemptTimeout();
			this.retryOn.addAll(rules.getRetryOn());
			this.abortOn.addAll(rules.getAbortOn());
			BackoffSchedule throttling = schedule.getThrottling();
			this.throttleBaseDelay = (throttling != null) ? throttling.getBaseDelay() : null;
			this.throttleMaxDelay = (throttling != null) ? throttling.getMaxDelay() : null;
			this.throttleOn.addAll(rules.getThrottleOn());
			this.throttledByDefault = rules.throttledByDefault();
			this.retryIfResult = rules.getRetryIfResult();
			this.retryableByDefault = rules.retryableByDefault();
			this.retryOnException = rules.getRetryOnException();
			this.retryAfter = rules.retryAfterSource();
			this.maxRetryAfter = rules.getMaxRetryAfter();
			this.hedgeDelay = policy.hedging.getDelay();
			this.maxHedges = policy.hedging.getMaxHedges();
			this.hedgePercentile = (policy.hedging.getPercentile() > 0) ? policy.hedging.getPercentile() : null;
		}

		/**
		 * @param maxAttempts all calls allowed, the first included: at least 1; {@link Integer#MAX_VALUE}: no limit
		 * @return this builder
		 */
		public Builder maxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
			return this;
		}

		/**
		 * @param baseDelay the first retry's ceiling: zero or positive, at most {@code maxDelay}
		 * @return this builder
		 */
		public Builder baseDelay(Duration baseDelay) {
			this.baseDelay = baseDelay;
			return this;
		}

		/**
		 * @param maxDelay the cap of every delay: at least {@code baseDelay}
		 * @return this builder
		 */
		public Builder maxDelay(Duration maxDelay) {
			this.maxDelay = maxDelay;
			return this;
		}

		/**
		 * @param multiplier the factor between consecutive ceilings: finite, at least 1 (a fixed delay)
		 * @return this builder
		 */
		public Builder multiplier(double multiplier) {
			this.multiplier = multiplier;
			return this;
		}

		/**
		 * @param jitter how each delay is drawn from its ceiling
		 * @return this builder
		 */
		public Builder jitter(Jitter jitter) {
			this.jitter = jitter;
			return this;
		}

		/**
		 * @param maxElapsed a budget for attempts plus waits (a wait that would end past it is
		 * not started): positive, or {@code null} for none
		 * @return this builder
		 */
		public Builder maxElapsed(@Nullable Duration maxElapsed) {
			this.maxElapsed = maxElapsed;
			return this;
		}

		/**
		 * Bounds each attempt of a non-blocking call: one still running then fails with a {@link
		 * java.util.concurrent.TimeoutException}; {@link BackoffExecutor#execute} refuses it.
		 * @param attemptTimeout positive and at most {@code maxElapsed}; {@code null} (the default): none
		 * @return this builder
		 */
		public Builder attemptTimeout(@Nullable Duration attemptTimeout) {
			this.attemptTimeout = attemptTimeout;
			return this;
		}

		/**
		 * @param hedgeDelay how long before another copy of a non-blocking call ({@link Hedging}):
		 * positive; with a {@code hedgePercentile}, the delay while the method's answers are too few
		 * @return this builder
		 */
		public Builder hedgeDelay(@Nullable Duration hedgeDelay) {
			this.hedgeDelay = hedgeDelay;
			return this;
		}

		/**
		 * @param maxHedges extra copies at most: 0 (the default: none) to 4; above 0 needs a {@code hedgeDelay}
		 * @return this builder
		 */
		public Builder maxHedges(int maxHedges) {
			this.maxHedges = maxHedges;
			return this;
		}

		/**
		 * @param hedgePercentile the percentile of the method's recent answer times that is the
		 * hedge delay (95 for p95), 50 to below 100; {@code null} (the default) for none
		 * @return this builder
		 */
		public Builder hedgePercentile(@Nullable Double hedgePercentile) {
			this.hedgePercentile = hedgePercentile;
			return this;
		}

		/**
		 * Retries only failures that are (or are caused by) one of these types; replaces any
		 * given before. None given: every {@link Exception}.
		 * @param types failure types
		 * @return this builder
		 */
		@SafeVarargs
		public final Builder retryOn(Class<? extends Throwable>... types) {
			return replace(this.retryOn, types);
		}

		/**
		 * Never retries failures that are (or are caused by) one of these types; replaces any
		 * given before. Wins over {@link #retryOn}.
		 * @param types failure types
		 * @return this builder
		 */
		@SafeVarargs
		public final Builder abortOn(Class<? extends Throwable>... types) {
			return replace(this.abortOn, types);
		}

		/**
		 * Gives failures classified as throttling (see {@link #throttleOn}) a schedule of their
		 * own: the same formula, attempts, multiplier and jitter with this base.
		 * @param throttleBaseDelay at least {@code baseDelay}; {@code null} (the default): the normal schedule
		 * @return this builder
		 */
		public Builder throttleBaseDelay(@Nullable Duration throttleBaseDelay) {
			this.throttleBaseDelay = throttleBaseDelay;
			return this;
		}

		/**
		 * @param throttleMaxDelay the cap of every throttled delay: at least {@code throttleBaseDelay} and
		 * {@code maxDelay}; {@code null} (the default): {@code maxDelay}, or a longer {@code throttleBaseDelay}
		 * @return this builder
		 */
		public Builder throttleMaxDelay(@Nullable Duration throttleMaxDelay) {
			this.throttleMaxDelay = throttleMaxDelay;
			return this;
		}

		/**
		 * Classifies failures of (or caused by) these types as throttling, replacing any given before: they
		 * wait by the throttling schedule and cost a budget less; with {@link #retryOn}, each subclasses one of its.
		 * @param types failure types
		 * @return this builder
		 */
		@SafeVarargs
		public final Builder throttleOn(Class<? extends Throwable>... types) {
			return replace(this.throttleOn, types);
		}

		/**
		 * Decides which other failures are throttling. Default: none.
		 * @param predicate the test on a retried failure
		 * @return this builder
		 */
		public Builder throttledByDefault(Predicate<? super Throwable> predicate) {
			this.throttledByDefault = Objects.requireNonNull(predicate, "throttledByDefault must not be null");
			return this;
		}

		/**
		 * Retries while a result matches (a job still {@code NOT_READY}); the last one is returned.
		 * @param predicate the test on a result, or {@code null} for none
		 * @return this builder
		 */
		@SuppressWarnings("unchecked")
		public Builder retryIfResult(@Nullable Predicate<?> predicate) {
			this.retryIfResult = (Predicate<@Nullable Object>) predicate;
			return this;
		}

		/**
		 * Decides the failures that neither {@code retryOn} (when none is given) nor
		 * {@code abortOn} decides. Default: every {@link Exception}.
		 * @param predicate the test on a failure
		 * @return this builder
		 */
		public Builder retryableByDefault(Predicate<? super Throwable> predicate) {
			this.retryableByDefault = Objects.requireNonNull(predicate, "retryableByDefault must not be null");
			return this;
		}

		/**
		 * Decides from what a failure says, in place of the default classification, once {@code abortOn} and
		 * {@code retryOn} let it through; one that throws ends it {@link Outcome#NOT_RETRYABLE}, its exception suppressed.
		 * @param predicate the test on a failure, or {@code null} for none
		 * @return this builder
		 */
		public Builder retryOnException(@Nullable Predicate<? super Throwable> predicate) {
			this.retryOnException = predicate;
			return this;
		}

		/**
		 * Reads a server's hint of how long to wait from a failure. Default: {@link RetryAfter#of}.
		 * @param source the reader; returns {@code null} for no hint
		 * @return this builder
		 */
		public Builder retryAfter(Function<? super Throwable, ? extends @Nullable Duration> source) {
			this.retryAfter = Objects.requireNonNull(source, "retryAfter must not be null");
			return this;
		}

		/**
		 * @param maxRetryAfter the longest server hint to honour (a longer one ends the call as
		 * {@link Outcome#TIMED_OUT}): zero or positive, or {@code null} for {@code maxDelay}
		 * @return this builder
		 */
		public Builder maxRetryAfter(@Nullable Duration maxRetryAfter) {
			this.maxRetryAfter = maxRetryAfter;
			return this;
		}

		private Builder replace(Set<Class<? extends Throwable>> target, Class<? extends Throwable>[] types) {
			target.clear();
			if (types != null) {
				target.addAll(Arrays.asList(types));
			}
			return this;
		}

		/**
		 * @return the policy
		 * @throws InvalidPolicyException if a setting or a combination breaks a rule
		 */
		public BackoffPolicy build() {
			return new BackoffPolicy(new BackoffSchedule(this.maxAttempts, this.baseDelay, this.maxDelay,
					this.multiplier, this.jitter, this.throttleBaseDelay, this.throttleMaxDelay),
					new RetryRules(this.retryOn, this.abortOn, this.throttleOn, this.throttledByDefault,
							this.retryableByDefault, this.retryOnException, this.retryIfResult,
							this.retryAfter, this.maxRetryAfter, this.maxElapsed, this.attemptTimeout),
					Hedging.of(this.hedgeDelay, this.maxHedges, this.hedgePercentile));
		}

	}

}
