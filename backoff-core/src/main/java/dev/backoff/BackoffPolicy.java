package dev.backoff;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

import dev.backoff.internal.CauseChain;
import org.jspecify.annotations.Nullable;

/**
 * An immutable retry policy: how many attempts, how long to wait between them, and which
 * failures (or results) are worth another attempt.
 *
 * <p>{@code maxAttempts} counts <em>all</em> calls, the first included (3 = 1 call + 2
 * retries; 1 = no retry; {@link Integer#MAX_VALUE} = unlimited). Retry {@code n = 1, 2, …}
 * waits a delay drawn by the {@link Jitter} from its ceiling
 * {@code v(n) = min(maxDelay, baseDelay × multiplier^(n−1))}. After a total elapsed backoff
 * {@code T} the next ceiling is about {@code baseDelay + (multiplier − 1) × T}: the multiplier
 * minus one is the ratio of the next wait to the time already waited.
 *
 * <p>Failures are classified along their cause chain: a failure is retried when it (or a
 * cause) is an instance of a {@code retryOn} type, or, with no {@code retryOn} given, when the
 * {@code retryableByDefault} predicate accepts it (by default: when it is an
 * {@link Exception}); and never when it (or a cause) is an instance of an {@code abortOn}
 * type (abort wins). {@link Error}s are not retried unless named.
 *
 * <p>Overload safety: a {@link RetryBudget} shared by all calls of the policy stops retries
 * while a dependency fails for everyone, and a server's {@link RetryAfter} hint lengthens a
 * wait (up to {@code maxRetryAfter}; a longer hint ends the call rather than wait in vain).
 *
 * <p>Made with {@link #builder()}; {@link Builder#build()} rejects invalid values with an
 * {@link InvalidPolicyException} naming the setting, the value and the rule.
 *
 * @see #delays()
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

	private final int maxAttempts;

	private final long baseDelayNanos;

	private final long maxDelayNanos;

	private final double multiplier;

	private final Jitter jitter;

	private final @Nullable Duration maxElapsed;

	private final Class<? extends Throwable>[] retryOn;

	private final Class<? extends Throwable>[] abortOn;

	private final @Nullable Predicate<@Nullable Object> retryIfResult;

	private final Predicate<? super Throwable> retryableByDefault;

	private final Function<? super Throwable, ? extends @Nullable Duration> retryAfter;

	private final @Nullable Duration maxRetryAfter;

	private final long maxRetryAfterNanos;

	private final @Nullable RetryBudget budget;

	private final Ceilings ceilings;

	private BackoffPolicy(Builder builder) {
		this.maxAttempts = builder.maxAttempts;
		this.baseDelayNanos = builder.baseDelay.toNanos();
		this.maxDelayNanos = builder.maxDelay.toNanos();
		this.multiplier = builder.multiplier;
		this.jitter = builder.jitter;
		this.maxElapsed = builder.maxElapsed;
		this.retryOn = toArray(builder.retryOn);
		this.abortOn = toArray(builder.abortOn);
		this.retryIfResult = builder.retryIfResult;
		this.retryableByDefault = builder.retryableByDefault;
		this.retryAfter = builder.retryAfter;
		this.maxRetryAfter = builder.maxRetryAfter;
		this.maxRetryAfterNanos = (builder.maxRetryAfter != null) ? builder.maxRetryAfter.toNanos() : this.maxDelayNanos;
		this.budget = builder.budget;
		this.ceilings = Ceilings.of(this.baseDelayNanos, this.maxDelayNanos, this.multiplier, this.maxAttempts - 1);
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

	/** @return the number of calls allowed, the first included; {@link Integer#MAX_VALUE} is unlimited */
	public int getMaxAttempts() {
		return this.maxAttempts;
	}

	/** @return the first retry's ceiling */
	public Duration getBaseDelay() {
		return Duration.ofNanos(this.baseDelayNanos);
	}

	/** @return the cap of every delay */
	public Duration getMaxDelay() {
		return Duration.ofNanos(this.maxDelayNanos);
	}

	/** @return the factor between consecutive ceilings, at least 1 */
	public double getMultiplier() {
		return this.multiplier;
	}

	/** @return how delays are drawn from their ceilings */
	public Jitter getJitter() {
		return this.jitter;
	}

	/** @return the budget for attempts plus waits, from the first call; {@code null} for none */
	public @Nullable Duration getMaxElapsed() {
		return this.maxElapsed;
	}

	/** @return the failure types to retry; empty means every {@link Exception} */
	public Set<Class<? extends Throwable>> getRetryOn() {
		return Collections.unmodifiableSet(new LinkedHashSet<>(Arrays.asList(this.retryOn)));
	}

	/** @return the failure types never to retry; they win over {@link #getRetryOn()} */
	public Set<Class<? extends Throwable>> getAbortOn() {
		return Collections.unmodifiableSet(new LinkedHashSet<>(Arrays.asList(this.abortOn)));
	}

	/** @return the predicate on a result that asks for another attempt; {@code null} for none */
	public @Nullable Predicate<@Nullable Object> getRetryIfResult() {
		return this.retryIfResult;
	}

	/**
	 * @return the longest server {@link RetryAfter} hint honoured: the one set, or else
	 * {@code maxDelay}
	 */
	public Duration getMaxRetryAfter() {
		return Duration.ofNanos(this.maxRetryAfterNanos);
	}

	/** @return the retry budget shared by every call of this policy, or {@code null} for none */
	public @Nullable RetryBudget getBudget() {
		return this.budget;
	}

	/**
	 * The server's hint of how long to wait after a failure, read by the policy's
	 * {@code retryAfter} source ({@link RetryAfter#of} unless set).
	 * @param failure an attempt's failure
	 * @return the hint, or {@code null} for none; a negative hint is read as none
	 */
	public @Nullable Duration retryAfter(Throwable failure) {
		Duration hint = this.retryAfter.apply(failure);
		return (hint != null && !hint.isNegative()) ? hint : null;
	}

	long maxRetryAfterNanos() {
		return this.maxRetryAfterNanos;
	}

	/** @return the number of retries allowed: {@code maxAttempts − 1} */
	public int getMaxRetries() {
		return this.maxAttempts - 1;
	}

	/**
	 * The ceiling of retry {@code n}: {@code min(maxDelay, baseDelay × multiplier^(n−1))},
	 * saturating for any {@code n}.
	 * @param retry the retry number, from 1
	 * @return the ceiling, in {@code [baseDelay, maxDelay]}
	 */
	public Duration ceiling(int retry) {
		if (retry < 1) {
			throw new IllegalArgumentException("retry must be at least 1, but was " + retry);
		}
		return Duration.ofNanos(ceilingNanos(retry));
	}

	/**
	 * The largest delay retry {@code n} can draw: its ceiling {@code v(n)}, or for decorrelated
	 * jitter {@code min(maxDelay, baseDelay × 3^n)}.
	 * @param retry the retry number, from 1
	 * @return the longest possible wait before that retry
	 */
	public Duration longestDelay(int retry) {
		if (this.jitter != Jitter.DECORRELATED) {
			return ceiling(retry);
		}
		if (retry < 1) {
			throw new IllegalArgumentException("retry must be at least 1, but was " + retry);
		}
		double longest = (this.baseDelayNanos == 0) ? 0 : this.baseDelayNanos * Math.pow(3.0, retry);
		return Duration.ofNanos((longest >= this.maxDelayNanos) ? this.maxDelayNanos : (long) longest);
	}

	/**
	 * The largest total wait a call can spend before its last attempt: the sum of
	 * {@link #longestDelay(int)} over every retry. Saturates at {@link #MAX_DURATION}.
	 * @return the worst-case total wait
	 */
	public Duration worstCaseTotalDelay() {
		boolean decorrelated = (this.jitter == Jitter.DECORRELATED);
		double factor = decorrelated ? 3.0 : this.multiplier;
		double worst = decorrelated ? this.baseDelayNanos * 3.0 : this.baseDelayNanos;
		int retries = getMaxRetries();
		double total = 0;
		int retry = 1;
		// Grows geometrically until it reaches the cap, then adds the cap for every retry left in
		// one step. A fixed or a zero delay never grows: skip the loop, which would otherwise run
		// once per retry, up to Integer.MAX_VALUE times.
		for (; retry <= retries && worst > 0 && worst < this.maxDelayNanos && factor > 1.0; retry++) {
			total += worst;
			worst *= factor;
		}
		total += (retries - retry + 1.0) * Math.min(worst, this.maxDelayNanos);
		return Duration.ofNanos((total >= Long.MAX_VALUE) ? Long.MAX_VALUE : (long) total);
	}

	/**
	 * A fresh, independent sequence of the waits before each retry, drawn with the calling
	 * thread's {@link ThreadLocalRandom}.
	 * @return a new sequence of {@code maxAttempts − 1} delays
	 */
	public BackoffDelays delays() {
		return new BackoffDelays(this, ThreadLocalRandom.current());
	}

	/**
	 * A fresh, independent sequence of the waits before each retry, drawn with the given
	 * generator (for reproducible sequences in tests and simulations). Do not share one seeded
	 * generator across clients: identical draws re-synchronise them.
	 * @param random the source of randomness for this sequence
	 * @return a new sequence of {@code maxAttempts − 1} delays
	 */
	public BackoffDelays delays(RandomGenerator random) {
		return new BackoffDelays(this, Objects.requireNonNull(random, "random must not be null"));
	}

	/**
	 * Whether a failure may be retried under this policy, by the rules in the class description.
	 * @param failure the failure of an attempt
	 * @return {@code true} to retry
	 */
	public boolean isRetryable(Throwable failure) {
		if (this.abortOn.length > 0 && matchesCauseChain(failure, this.abortOn)) {
			return false;
		}
		if (this.retryOn.length == 0) {
			return this.retryableByDefault.test(failure);
		}
		return matchesCauseChain(failure, this.retryOn);
	}

	/**
	 * Whether a result asks for another attempt.
	 * @param result the result of an attempt
	 * @return {@code true} when a result predicate is set and matches
	 */
	public boolean isRetryableResult(@Nullable Object result) {
		return this.retryIfResult != null && this.retryIfResult.test(result);
	}

	long baseDelayNanos() {
		return this.baseDelayNanos;
	}

	long maxDelayNanos() {
		return this.maxDelayNanos;
	}

	/**
	 * The ceiling of retry {@code n} in nanoseconds: the one formula that {@link #ceiling(int)}
	 * and {@link BackoffDelays} share, so that a sequence's delays match the advertised ceilings
	 * to the nanosecond. Saturating, and without a {@code Math.pow} per retry: see {@link Ceilings}.
	 */
	long ceilingNanos(int retry) {
		return this.ceilings.nanos(retry);
	}

	/** @return the number of powers of the multiplier this policy caches, for the memory bound's tests */
	int cachedPowers() {
		return this.ceilings.cachedPowers();
	}

	private static boolean matchesCauseChain(Throwable failure, Class<? extends Throwable>[] types) {
		return CauseChain.first(failure, (current) -> {
			for (Class<? extends Throwable> type : types) {
				if (type.isInstance(current)) {
					return Boolean.TRUE;
				}
			}
			return null;
		}) != null;
	}

	@SuppressWarnings("unchecked")
	private static Class<? extends Throwable>[] toArray(Set<Class<? extends Throwable>> types) {
		return types.toArray(new Class[0]);
	}

	@Override
	public String toString() {
		return "BackoffPolicy[maxAttempts=" + this.maxAttempts + ", baseDelay=" + getBaseDelay() + ", maxDelay="
				+ getMaxDelay() + ", multiplier=" + this.multiplier + ", jitter=" + this.jitter
				+ ((this.maxElapsed != null) ? ", maxElapsed=" + this.maxElapsed : "")
				+ ((this.retryOn.length > 0) ? ", retryOn=" + getRetryOn() : "")
				+ ((this.abortOn.length > 0) ? ", abortOn=" + getAbortOn() : "")
				+ ((this.retryIfResult != null) ? ", retryIfResult" : "")
				+ ((this.maxRetryAfter != null) ? ", maxRetryAfter=" + this.maxRetryAfter : "")
				+ ((this.budget != null) ? ", budget=" + this.budget : "") + "]";
	}

	/**
	 * Builds a {@link BackoffPolicy}; starts from the defaults. Not thread-safe.
	 */
	public static final class Builder {

		private int maxAttempts = DEFAULT_MAX_ATTEMPTS;

		private @Nullable Duration baseDelay = DEFAULT_BASE_DELAY;

		private @Nullable Duration maxDelay = DEFAULT_MAX_DELAY;

		private double multiplier = DEFAULT_MULTIPLIER;

		private @Nullable Jitter jitter = DEFAULT_JITTER;

		private @Nullable Duration maxElapsed;

		private final Set<Class<? extends Throwable>> retryOn = new LinkedHashSet<>();

		private final Set<Class<? extends Throwable>> abortOn = new LinkedHashSet<>();

		private @Nullable Predicate<@Nullable Object> retryIfResult;

		private Predicate<? super Throwable> retryableByDefault = Builder::isException;

		private Function<? super Throwable, ? extends @Nullable Duration> retryAfter = RetryAfter::of;

		private @Nullable Duration maxRetryAfter;

		private @Nullable RetryBudget budget;

		private Builder() {
		}

		private Builder(BackoffPolicy policy) {
			this.maxAttempts = policy.maxAttempts;
			this.baseDelay = policy.getBaseDelay();
			this.maxDelay = policy.getMaxDelay();
			this.multiplier = policy.multiplier;
			this.jitter = policy.jitter;
			this.maxElapsed = policy.maxElapsed;
			this.retryOn.addAll(Arrays.asList(policy.retryOn));
			this.abortOn.addAll(Arrays.asList(policy.abortOn));
			this.retryIfResult = policy.retryIfResult;
			this.retryableByDefault = policy.retryableByDefault;
			this.retryAfter = policy.retryAfter;
			this.maxRetryAfter = policy.maxRetryAfter;
			// The same instance: a policy derived from this one (an annotation's overrides, say)
			// draws on the same budget, which is shared by all callers of the policy.
			this.budget = policy.budget;
		}

		private static boolean isException(Throwable failure) {
			return failure instanceof Exception;
		}

		/**
		 * @param maxAttempts all calls allowed, the first included: at least 1;
		 * {@link Integer#MAX_VALUE} for unlimited
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
		 * @param multiplier the factor between consecutive ceilings: finite and at least 1
		 * (1 gives a fixed delay)
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
		 * @param maxElapsed a budget for attempts plus waits, from the first call: positive, or
		 * {@code null} for none. A wait that would end past it is not started.
		 * @return this builder
		 */
		public Builder maxElapsed(@Nullable Duration maxElapsed) {
			this.maxElapsed = maxElapsed;
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
		 * Retries while a successful attempt's result matches, e.g. a job still
		 * {@code NOT_READY}. When attempts run out the last result is returned.
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
		 * {@code abortOn} decides. Default: every {@link Exception}. The Spring integration
		 * sets an HTTP-aware one when spring-web is present (5xx, 408, 429 and I/O errors
		 * retried; other 4xx not).
		 * @param predicate the test on a failure
		 * @return this builder
		 */
		public Builder retryableByDefault(Predicate<? super Throwable> predicate) {
			this.retryableByDefault = Objects.requireNonNull(predicate, "retryableByDefault must not be null");
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
		 * @param maxRetryAfter the longest server hint to honour: zero or positive, or
		 * {@code null} for {@code maxDelay}. A longer hint ends the call with
		 * {@link Outcome#TIMED_OUT} instead of waiting.
		 * @return this builder
		 */
		public Builder maxRetryAfter(@Nullable Duration maxRetryAfter) {
			this.maxRetryAfter = maxRetryAfter;
			return this;
		}

		/**
		 * @param budget the retry budget that every call of the policy shares, or {@code null}
		 * for none; policies built from this one with {@link BackoffPolicy#toBuilder()} share it too
		 * @return this builder
		 */
		public Builder budget(@Nullable RetryBudget budget) {
			this.budget = budget;
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
			if (this.maxAttempts < 1) {
				throw new InvalidPolicyException("maxAttempts", this.maxAttempts,
						"must be at least 1 (it counts every call, the first included)");
			}
			Duration base = requireDuration("baseDelay", this.baseDelay);
			Duration max = requireDuration("maxDelay", this.maxDelay);
			if (max.compareTo(base) < 0) {
				throw new InvalidPolicyException("maxDelay", max, "must be at least baseDelay (" + base + ")");
			}
			if (Double.isNaN(this.multiplier) || Double.isInfinite(this.multiplier) || this.multiplier < 1.0) {
				throw new InvalidPolicyException("multiplier", this.multiplier,
						"must be a finite number of at least 1 (1 gives a fixed delay)");
			}
			if (this.jitter == null) {
				throw new InvalidPolicyException("jitter", null,
						"must be one of " + Arrays.toString(Jitter.values()));
			}
			if (this.maxElapsed != null) {
				// Checked before requireDuration, whose "zero or positive" would be wrong here.
				if (this.maxElapsed.isNegative() || this.maxElapsed.isZero()) {
					throw new InvalidPolicyException("maxElapsed", this.maxElapsed,
							"must be positive (or unset for no limit)");
				}
				requireDuration("maxElapsed", this.maxElapsed);
			}
			if (this.maxRetryAfter != null) {
				requireDuration("maxRetryAfter", this.maxRetryAfter);
			}
			checkTypes("retryOn", this.retryOn);
			checkTypes("abortOn", this.abortOn);
			for (Class<? extends Throwable> type : this.retryOn) {
				if (this.abortOn.contains(type)) {
					throw new InvalidPolicyException("abortOn", type.getName(),
							"must not name a type that retryOn names too");
				}
			}
			return new BackoffPolicy(this);
		}

		private static Duration requireDuration(String setting, @Nullable Duration value) {
			if (value == null || value.isNegative()) {
				throw new InvalidPolicyException(setting, value, "must be zero or positive");
			}
			if (value.compareTo(MAX_DURATION) > 0) {
				throw new InvalidPolicyException(setting, value,
						"must be at most " + MAX_DURATION + " (Long.MAX_VALUE nanoseconds)");
			}
			return value;
		}

		private static void checkTypes(String setting, Set<Class<? extends Throwable>> types) {
			for (Class<?> type : types) {
				// Raw or reflective callers can slip past the generic signature.
				if (type == null || !Throwable.class.isAssignableFrom(type)) {
					throw new InvalidPolicyException(setting, (type != null) ? type.getName() : null,
							"must name only Throwable types");
				}
			}
		}

	}

}
