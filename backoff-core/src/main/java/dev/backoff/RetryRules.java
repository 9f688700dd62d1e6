package dev.backoff;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

import dev.backoff.internal.CauseChain;
import org.jspecify.annotations.Nullable;

/**
 * Whether to retry: which failures and results are worth another attempt, what a server's
 * {@link RetryAfter} hint may ask for, how long a call may take in all, and how long one attempt
 * may take. An immutable value,
 * the rules half of a {@link BackoffPolicy}.
 *
 * <p>One rule decides a failure: {@code abortOn} always wins (the failure, or a cause, is an
 * instance of one: never retried); {@code retryOn}, when given, narrows (the failure or a
 * cause must be an instance of one); then the {@code retryOnException} predicate, when given,
 * decides, in place of the default classification, so it may also widen it; otherwise a
 * failure that {@code retryOn} matched is retried, and with no {@code retryOn} the
 * {@code retryableByDefault} predicate decides (by default: every {@link Exception}, never an
 * {@link Error}). A predicate that throws is a bug in the predicate: see {@link #isRetryable}.
 *
 * <p>A retried failure may also be {@link #isThrottled throttling}: the server asked for less
 * load. Its wait then comes from the schedule's {@link BackoffSchedule#getThrottling()
 * throttling schedule}, and it takes less from a {@link RetryBudget}. {@code throttleOn} names
 * such failures; the {@code throttledByDefault} predicate decides the rest (by default none:
 * the Spring integration classifies HTTP 429, and 503 with {@code Retry-After}). Throttling
 * never makes a failure retryable that the rule above does not retry.
 *
 * @see BackoffPolicy.Builder
 */
public final class RetryRules {

	private final Class<? extends Throwable>[] retryOn;

	private final Class<? extends Throwable>[] abortOn;

	private final Class<? extends Throwable>[] throttleOn;

	private final Predicate<? super Throwable> throttledByDefault;

	private final Predicate<? super Throwable> retryableByDefault;

	private final @Nullable Predicate<? super Throwable> retryOnException;

	private final @Nullable Predicate<@Nullable Object> retryIfResult;

	private final Function<? super Throwable, ? extends @Nullable Duration> retryAfter;

	private final @Nullable Duration maxRetryAfter;

	private final @Nullable Duration maxElapsed;

	private final @Nullable Duration attemptTimeout;

	RetryRules(Set<Class<? extends Throwable>> retryOn, Set<Class<? extends Throwable>> abortOn,
			Set<Class<? extends Throwable>> throttleOn, Predicate<? super Throwable> throttledByDefault,
			Predicate<? super Throwable> retryableByDefault, @Nullable Predicate<? super Throwable> retryOnException,
			@Nullable Predicate<@Nullable Object> retryIfResult,
			Function<? super Throwable, ? extends @Nullable Duration> retryAfter, @Nullable Duration maxRetryAfter,
			@Nullable Duration maxElapsed, @Nullable Duration attemptTimeout) {
		if (maxElapsed != null) {
			// Checked before requireDuration, whose "zero or positive" would be wrong here.
			if (maxElapsed.isNegative() || maxElapsed.isZero()) {
				throw new InvalidPolicyException("maxElapsed", maxElapsed, "must be positive (or unset for no limit)");
			}
			BackoffSchedule.requireDuration("maxElapsed", maxElapsed);
		}
		if (maxRetryAfter != null) {
			BackoffSchedule.requireDuration("maxRetryAfter", maxRetryAfter);
		}
		if (attemptTimeout != null) {
			if (attemptTimeout.isNegative() || attemptTimeout.isZero()) {
				throw new InvalidPolicyException("attemptTimeout", attemptTimeout,
						"must be positive (or unset for no limit)");
			}
			BackoffSchedule.requireDuration("attemptTimeout", attemptTimeout);
			if (maxElapsed != null && attemptTimeout.compareTo(maxElapsed) > 0) {
				// maxElapsed bounds the whole call: an attempt allowed to outlast it could never be retried.
				throw new InvalidPolicyException("attemptTimeout", attemptTimeout,
						"must be at most {0} ({1}): no retry could follow an attempt that ran longer than the whole call may take",
						new InvalidPolicyException.Setting("maxElapsed"), maxElapsed);
			}
		}
		this.retryOn = toArray("retryOn", retryOn);
		this.abortOn = toArray("abortOn", abortOn);
		this.throttleOn = toArray("throttleOn", throttleOn);
		for (Class<? extends Throwable> type : this.throttleOn) {
			for (Class<? extends Throwable> aborted : this.abortOn) {
				if (aborted.isAssignableFrom(type)) {
					throw new InvalidPolicyException("throttleOn", type.getName(),
							"must not name a subtype of {0}, which {1} names: it is never retried", aborted.getName(),
							new InvalidPolicyException.Setting("abortOn"));
				}
			}
			if (this.retryOn.length > 0 && Arrays.stream(this.retryOn).noneMatch((retried) -> retried.isAssignableFrom(type))) {
				throw new InvalidPolicyException("throttleOn", type.getName(),
						"must name a subtype of a type that {0} names ({1}): throttling only changes how a retried failure waits",
						new InvalidPolicyException.Setting("retryOn"),
						String.join(", ", Arrays.stream(this.retryOn).map(Class::getName).toList()));
			}
		}
		this.throttledByDefault = throttledByDefault;
		for (Class<? extends Throwable> type : this.retryOn) {
			if (abortOn.contains(type)) {
				throw new InvalidPolicyException("abortOn", type.getName(), "must not name a type that {0} names too",
						new InvalidPolicyException.Setting("retryOn"));
			}
			for (Class<? extends Throwable> aborted : this.abortOn) {
				if (aborted.isAssignableFrom(type)) {
					// abortOn wins along the whole cause chain: nothing retryOn matches could be retried.
					throw new InvalidPolicyException("retryOn", type.getName(),
							"must not name a subtype of {0}, which {1} names: it could never be retried", aborted.getName(),
							new InvalidPolicyException.Setting("abortOn"));
				}
			}
		}
		this.retryableByDefault = retryableByDefault;
		this.retryOnException = retryOnException;
		this.retryIfResult = retryIfResult;
		this.retryAfter = retryAfter;
		this.maxRetryAfter = maxRetryAfter;
		this.maxElapsed = maxElapsed;
		this.attemptTimeout = attemptTimeout;
	}

	/** @return the failure types to retry; empty means those {@code retryableByDefault} accepts */
	public Set<Class<? extends Throwable>> getRetryOn() {
		return Collections.unmodifiableSet(new LinkedHashSet<>(Arrays.asList(this.retryOn)));
	}

	/** @return the failure types never to retry; they win over {@link #getRetryOn()} */
	public Set<Class<? extends Throwable>> getAbortOn() {
		return Collections.unmodifiableSet(new LinkedHashSet<>(Arrays.asList(this.abortOn)));
	}

	/** @return the failure types classified as throttling, besides those {@code throttledByDefault} accepts */
	public Set<Class<? extends Throwable>> getThrottleOn() {
		return Collections.unmodifiableSet(new LinkedHashSet<>(Arrays.asList(this.throttleOn)));
	}

	/**
	 * @return the predicate on a failure that decides in place of the default classification;
	 * {@code null} for none
	 */
	public @Nullable Predicate<? super Throwable> getRetryOnException() {
		return this.retryOnException;
	}

	/** @return the predicate on a result that asks for another attempt; {@code null} for none */
	public @Nullable Predicate<@Nullable Object> getRetryIfResult() {
		return this.retryIfResult;
	}

	/** @return the longest server hint honoured, or {@code null} for the schedule's {@code maxDelay} */
	public @Nullable Duration getMaxRetryAfter() {
		return this.maxRetryAfter;
	}

	/** @return the budget for attempts plus waits, from the first call; {@code null} for none */
	public @Nullable Duration getMaxElapsed() {
		return this.maxElapsed;
	}

	/**
	 * @return how long one attempt of a non-blocking call may take before it fails with a
	 * {@link java.util.concurrent.TimeoutException}; {@code null} for no limit
	 * @see BackoffPolicy.Builder#attemptTimeout
	 */
	public @Nullable Duration getAttemptTimeout() {
		return this.attemptTimeout;
	}

	/**
	 * Whether a failure may be retried, by the rule in the class description.
	 * @param failure the failure of an attempt
	 * @return {@code true} to retry
	 * @throws RuntimeException what a {@code retryOnException} predicate throws; callers
	 * end the call as not retryable and hand the caller the original failure
	 */
	public boolean isRetryable(Throwable failure) {
		if (this.abortOn.length > 0 && matchesCauseChain(failure, this.abortOn)) {
			return false;
		}
		if (this.retryOn.length > 0 && !matchesCauseChain(failure, this.retryOn)) {
			return false;
		}
		if (this.retryOnException != null) {
			return this.retryOnException.test(failure);
		}
		return this.retryOn.length > 0 || this.retryableByDefault.test(failure);
	}

	/**
	 * Whether a failure is throttling: the failure, or a cause, is an instance of a
	 * {@code throttleOn} type, or the {@code throttledByDefault} predicate accepts it. Asked
	 * only of failures that {@link #isRetryable} retries.
	 * @param failure the failure of an attempt
	 * @return {@code true} when its retry is to wait by the throttling schedule and cost the
	 * budget's {@code throttleCost}
	 * @throws RuntimeException what the {@code throttledByDefault} predicate throws; callers
	 * read it as "not throttling"
	 */
	public boolean isThrottled(Throwable failure) {
		return (this.throttleOn.length > 0 && matchesCauseChain(failure, this.throttleOn))
				|| this.throttledByDefault.test(failure);
	}

	/**
	 * Whether a result asks for another attempt.
	 * @param result the result of an attempt
	 * @return {@code true} when a result predicate is set and matches
	 */
	public boolean isRetryableResult(@Nullable Object result) {
		return this.retryIfResult != null && this.retryIfResult.test(result);
	}

	/**
	 * The server's hint of how long to wait after a failure, read by the {@code retryAfter}
	 * source ({@link RetryAfter#of} unless set).
	 * @param failure an attempt's failure
	 * @return the hint, or {@code null} for none; a negative hint is read as none
	 */
	public @Nullable Duration retryAfter(Throwable failure) {
		Duration hint = this.retryAfter.apply(failure);
		return (hint != null && !hint.isNegative()) ? hint : null;
	}

	Predicate<? super Throwable> retryableByDefault() {
		return this.retryableByDefault;
	}

	Predicate<? super Throwable> throttledByDefault() {
		return this.throttledByDefault;
	}

	Function<? super Throwable, ? extends @Nullable Duration> retryAfterSource() {
		return this.retryAfter;
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
	private static Class<? extends Throwable>[] toArray(String setting, Set<Class<? extends Throwable>> types) {
		for (Class<?> type : types) {
			// Raw or reflective callers can slip past the generic signature.
			if (type == null || !Throwable.class.isAssignableFrom(type)) {
				throw new InvalidPolicyException(setting, (type != null) ? type.getName() : null,
						"must name only Throwable types");
			}
		}
		return types.toArray(new Class[0]);
	}

	@Override
	public String toString() {
		return ((this.maxElapsed != null) ? ", maxElapsed=" + this.maxElapsed : "")
				+ ((this.attemptTimeout != null) ? ", attemptTimeout=" + this.attemptTimeout : "")
				+ ((this.retryOn.length > 0) ? ", retryOn=" + getRetryOn() : "")
				+ ((this.abortOn.length > 0) ? ", abortOn=" + getAbortOn() : "")
				+ ((this.throttleOn.length > 0) ? ", throttleOn=" + getThrottleOn() : "")
				+ ((this.retryOnException != null) ? ", retryOnException=" + this.retryOnException : "")
				+ ((this.retryIfResult != null) ? ", retryIfResult" : "")
				+ ((this.maxRetryAfter != null) ? ", maxRetryAfter=" + this.maxRetryAfter : "");
	}

}
