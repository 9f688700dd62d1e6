package dev.backoff;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * A retry policy: a {@link BackoffSchedule} (how many attempts, how long to wait between
 * them) and {@link RetryRules} (which failures or results are worth another attempt). An
 * immutable value: a {@link RetryBudget}, which changes with every call, is kept beside a
 * policy, never inside it (see {@link BackoffExecutor#execute}).
 *
 * <p>Made with {@link #builder()}, one builder for both halves; {@link Builder#build()}
 * rejects invalid values with an {@link InvalidPolicyException} naming the setting, the value
 * and the rule.
 *
 * <pre class="code">
 * BackoffPolicy policy = BackoffPolicy.builder()
 *     .maxAttempts(5)
 *     .baseDelay(Duration.ofMillis(200))
 *     .jitter(Jitter.DECORRELATED)
 *     .retryOn(IOException.class)
 *     .build();
 * </pre>
 *
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

	private BackoffPolicy(BackoffSchedule schedule, RetryRules rules) {
		this.schedule = schedule;
		this.rules = rules;
		Duration maxRetryAfter = rules.getMaxRetryAfter();
		BackoffSchedule throttling = schedule.getThrottling();
		// Unset: the longest cap the policy has, so that a throttling server's hint within it is honoured.
		this.maxRetryAfterNanos = (maxRetryAfter != null) ? maxRetryAfter.toNanos()
				: (throttling != null) ? throttling.maxDelayNanos() : schedule.maxDelayNanos();
	}

	/** @return a builder holding the defaults */
	public static Builder builder() {
		return new Builder(new PolicyBuilderState());
	}

	/** @return the policy with every default ({@code DEFAULT_*}) */
	public static BackoffPolicy defaults() {
		return DEFAULTS;
	}

	/** @return a builder that starts from this policy's settings */
	public Builder toBuilder() {
		return new Builder(new PolicyBuilderState(this.schedule, this.rules));
	}

	/** @return when to retry: the attempts and the waits between them */
	public BackoffSchedule getSchedule() {
		return this.schedule;
	}

	/** @return whether to retry: the failures, results and hints worth another attempt */
	public RetryRules getRules() {
		return this.rules;
	}

	/**
	 * @return the longest server {@link RetryAfter} hint honoured: the one set, or else
	 * {@code maxDelay} ({@code throttleMaxDelay} when the schedule has a throttling schedule)
	 */
	public Duration getMaxRetryAfter() {
		return Duration.ofNanos(this.maxRetryAfterNanos);
	}

	/**
	 * @return how long one attempt of a non-blocking call may take, or {@code null} for no
	 * limit: the {@link RetryRules#getAttemptTimeout() rules'} setting
	 * @see Builder#attemptTimeout
	 */
	public @Nullable Duration getAttemptTimeout() {
		return this.rules.getAttemptTimeout();
	}

	long maxRetryAfterNanos() {
		return this.maxRetryAfterNanos;
	}

	@Override
	public String toString() {
		return "BackoffPolicy[" + this.schedule + this.rules + "]";
	}

	/**
	 * Builds a {@link BackoffPolicy}; starts from the defaults. Not thread-safe.
	 */
	public static final class Builder {

		private final PolicyBuilderState settings;

		private Builder(PolicyBuilderState settings) {
			this.settings = settings;
		}

		/**
		 * @param maxAttempts all calls allowed, the first included: at least 1;
		 * {@link Integer#MAX_VALUE} for unlimited
		 * @return this builder
		 */
		public Builder maxAttempts(int maxAttempts) {
			this.settings.maxAttempts = maxAttempts;
			return this;
		}

		/**
		 * @param baseDelay the first retry's ceiling: zero or positive, at most {@code maxDelay}
		 * @return this builder
		 */
		public Builder baseDelay(Duration baseDelay) {
			this.settings.baseDelay = baseDelay;
			return this;
		}

		/**
		 * @param maxDelay the cap of every delay: at least {@code baseDelay}
		 * @return this builder
		 */
		public Builder maxDelay(Duration maxDelay) {
			this.settings.maxDelay = maxDelay;
			return this;
		}

		/**
		 * @param multiplier the factor between consecutive ceilings: finite and at least 1
		 * (1 gives a fixed delay)
		 * @return this builder
		 */
		public Builder multiplier(double multiplier) {
			this.settings.multiplier = multiplier;
			return this;
		}

		/**
		 * @param jitter how each delay is drawn from its ceiling
		 * @return this builder
		 */
		public Builder jitter(Jitter jitter) {
			this.settings.jitter = jitter;
			return this;
		}

		/**
		 * @param maxElapsed a budget for attempts plus waits, from the first call: positive, or
		 * {@code null} for none. A wait that would end past it is not started.
		 * @return this builder
		 */
		public Builder maxElapsed(@Nullable Duration maxElapsed) {
			this.settings.maxElapsed = maxElapsed;
			return this;
		}

		/**
		 * Bounds each attempt of a non-blocking call ({@link BackoffExecutor#executeAsync}, or an
		 * integration that steps a {@link BackoffCall}): an attempt that has not completed within
		 * it fails with a {@link java.util.concurrent.TimeoutException}, which the rules classify
		 * like any failure (every {@code Exception} is retried by default), and the next attempt
		 * follows the schedule. A blocking call cannot be bounded, since Java cannot stop a
		 * thread safely: {@link BackoffExecutor#execute} refuses a policy that has one.
		 * @param attemptTimeout how long one attempt may take: positive and at most
		 * {@code maxElapsed}, or {@code null} (the default) for no limit
		 * @return this builder
		 */
		public Builder attemptTimeout(@Nullable Duration attemptTimeout) {
			this.settings.attemptTimeout = attemptTimeout;
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
			PolicyBuilderState.replace(this.settings.retryOn, types);
			return this;
		}

		/**
		 * Never retries failures that are (or are caused by) one of these types; replaces any
		 * given before. Wins over {@link #retryOn}.
		 * @param types failure types
		 * @return this builder
		 */
		@SafeVarargs
		public final Builder abortOn(Class<? extends Throwable>... types) {
			PolicyBuilderState.replace(this.settings.abortOn, types);
			return this;
		}

		/**
		 * Gives failures classified as throttling (see {@link #throttleOn}) a schedule of their
		 * own: the same formula, attempts, multiplier and jitter with this base. AWS's SDKs use
		 * 1 s after throttling against 50 ms after other transient errors.
		 * @param throttleBaseDelay the first throttled retry's ceiling: at least {@code baseDelay};
		 * {@code null} (the default) for throttled retries to follow the normal schedule
		 * @return this builder
		 */
		public Builder throttleBaseDelay(@Nullable Duration throttleBaseDelay) {
			this.settings.throttleBaseDelay = throttleBaseDelay;
			return this;
		}

		/**
		 * @param throttleMaxDelay the cap of every throttled delay: at least
		 * {@code throttleBaseDelay} and {@code maxDelay}; {@code null} (the default) for
		 * {@code maxDelay}, or {@code throttleBaseDelay} when that is longer
		 * @return this builder
		 */
		public Builder throttleMaxDelay(@Nullable Duration throttleMaxDelay) {
			this.settings.throttleMaxDelay = throttleMaxDelay;
			return this;
		}

		/**
		 * Classifies failures that are (or are caused by) one of these types as throttling; replaces
		 * any given before. Their retries wait by the throttling schedule and take
		 * {@link RetryBudget#getThrottleCost() less} from a retry budget. It does not make them
		 * retryable: with {@link #retryOn} given, each must be a subtype of one of its types.
		 * @param types failure types
		 * @return this builder
		 */
		@SafeVarargs
		public final Builder throttleOn(Class<? extends Throwable>... types) {
			PolicyBuilderState.replace(this.settings.throttleOn, types);
			return this;
		}

		/**
		 * Decides which other failures are throttling. Default: none. The Spring integration
		 * sets an HTTP-aware one when spring-web is present (429, and 503 with {@code Retry-After}).
		 * @param predicate the test on a retried failure
		 * @return this builder
		 */
		public Builder throttledByDefault(Predicate<? super Throwable> predicate) {
			this.settings.throttledByDefault = Objects.requireNonNull(predicate, "throttledByDefault must not be null");
			return this;
		}

		/**
		 * Retries while a successful attempt's result matches, e.g. a job still
		 * {@code NOT_READY}. When attempts run out the last result is returned.
		 * @param predicate the test on a result, or {@code null} for none
		 * @return this builder
		 */
		@SuppressWarnings("unchecked")
		public Builder retryIfResult(@Nullable Predicate<?> predicate) {
			this.settings.retryIfResult = (Predicate<@Nullable Object>) predicate;
			return this;
		}

		/**
		 * Decides the failures that neither {@code retryOn} (when none is given) nor
		 * {@code abortOn} decides. Default: every {@link Exception}. The Spring integration
		 * sets an HTTP-aware one when spring-web is present (5xx, 408, 429 and I/O errors
		 * retried; other 4xx not).
		 * @param predicate the test on a failure
		 * @return this builder
		 */
		public Builder retryableByDefault(Predicate<? super Throwable> predicate) {
			this.settings.retryableByDefault = Objects.requireNonNull(predicate, "retryableByDefault must not be null");
			return this;
		}

		/**
		 * Decides from what a failure says, not only its class, e.g. retry a throttling error
		 * code and no other: tested on an attempt's failure once {@code abortOn} (which always
		 * wins) and {@code retryOn} (which narrows, when given) have let it through, in place
		 * of the default classification, so it may also widen it. A predicate that throws ends
		 * the call as {@link Outcome#NOT_RETRYABLE}; the caller gets the original failure, with
		 * the predicate's exception attached as suppressed.
		 * @param predicate the test on a failure, or {@code null} for none
		 * @return this builder
		 */
		public Builder retryOnException(@Nullable Predicate<? super Throwable> predicate) {
			this.settings.retryOnException = predicate;
			return this;
		}

		/**
		 * Reads a server's hint of how long to wait from a failure. Default: {@link RetryAfter#of}.
		 * @param source the reader; returns {@code null} for no hint
		 * @return this builder
		 */
		public Builder retryAfter(Function<? super Throwable, ? extends @Nullable Duration> source) {
			this.settings.retryAfter = Objects.requireNonNull(source, "retryAfter must not be null");
			return this;
		}

		/**
		 * @param maxRetryAfter the longest server hint to honour: zero or positive, or
		 * {@code null} for {@code maxDelay}. A longer hint ends the call with
		 * {@link Outcome#TIMED_OUT} instead of waiting.
		 * @return this builder
		 */
		public Builder maxRetryAfter(@Nullable Duration maxRetryAfter) {
			this.settings.maxRetryAfter = maxRetryAfter;
			return this;
		}

		/**
		 * @return the policy
		 * @throws InvalidPolicyException if a setting or a combination breaks a rule
		 */
		public BackoffPolicy build() {
			return new BackoffPolicy(this.settings.schedule(), this.settings.rules());
		}

	}

}
