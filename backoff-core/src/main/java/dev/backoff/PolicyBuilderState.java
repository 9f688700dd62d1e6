package dev.backoff;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * What a {@link BackoffPolicy.Builder} holds: every setting, from the defaults or from a
 * policy's own, and their assembly into the two halves, whose constructors validate them
 * (the schedule first, so its errors come first). The builder is the documented face of each
 * setting; this is its state.
 */
final class PolicyBuilderState {

	int maxAttempts = BackoffPolicy.DEFAULT_MAX_ATTEMPTS;

	@Nullable Duration baseDelay = BackoffPolicy.DEFAULT_BASE_DELAY;

	@Nullable Duration maxDelay = BackoffPolicy.DEFAULT_MAX_DELAY;

	double multiplier = BackoffPolicy.DEFAULT_MULTIPLIER;

	@Nullable Jitter jitter = BackoffPolicy.DEFAULT_JITTER;

	@Nullable Duration maxElapsed;

	@Nullable Duration attemptTimeout;

	final Set<Class<? extends Throwable>> retryOn = new LinkedHashSet<>();

	final Set<Class<? extends Throwable>> abortOn = new LinkedHashSet<>();

	@Nullable Duration throttleBaseDelay;

	@Nullable Duration throttleMaxDelay;

	final Set<Class<? extends Throwable>> throttleOn = new LinkedHashSet<>();

	Predicate<? super Throwable> throttledByDefault = (failure) -> false;

	@Nullable Predicate<@Nullable Object> retryIfResult;

	Predicate<? super Throwable> retryableByDefault = PolicyBuilderState::isException;

	@Nullable Predicate<? super Throwable> retryOnException;

	Function<? super Throwable, ? extends @Nullable Duration> retryAfter = RetryAfter::of;

	@Nullable Duration maxRetryAfter;

	PolicyBuilderState() {
	}

	PolicyBuilderState(BackoffSchedule schedule, RetryRules rules) {
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
	}

	private static boolean isException(Throwable failure) {
		return failure instanceof Exception;
	}

	static void replace(Set<Class<? extends Throwable>> target, Class<? extends Throwable> @Nullable [] types) {
		target.clear();
		if (types != null) {
			target.addAll(Arrays.asList(types));
		}
	}

	/** @throws InvalidPolicyException if a setting breaks a rule */
	BackoffSchedule schedule() {
		return new BackoffSchedule(this.maxAttempts, this.baseDelay, this.maxDelay, this.multiplier, this.jitter,
				this.throttleBaseDelay, this.throttleMaxDelay);
	}

	/** @throws InvalidPolicyException if a setting or a combination breaks a rule */
	RetryRules rules() {
		return new RetryRules(this.retryOn, this.abortOn, this.throttleOn, this.throttledByDefault,
				this.retryableByDefault, this.retryOnException, this.retryIfResult, this.retryAfter,
				this.maxRetryAfter, this.maxElapsed, this.attemptTimeout);
	}

}
