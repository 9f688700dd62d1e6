package dev.backoff;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A retry budget: a token bucket shared by every call of a policy, as in gRPC's retry
 * throttling. It stops retries from multiplying the load on a dependency that is already
 * failing, and lets them resume once the dependency recovers.
 *
 * <p>The bucket starts full at {@code maxTokens}. Each failed attempt whose failure the policy
 * classifies as retryable takes one token (never below zero), the last attempt's too, and so
 * does an attempt whose result asks for a retry; each successful call gives back
 * {@code tokenRatio}, up to {@code maxTokens}. A retry is allowed only while the tokens left
 * after the failure are more than half of {@code maxTokens}. So with the defaults (10 tokens,
 * ratio 0.1) a run of five failures stops retrying, and from an empty bucket 61 successes
 * later retries are allowed again: once the budget is spent, the extra load that retries add is at
 * most about {@code tokenRatio} attempts per call.
 *
 * <p>A failure classified as throttling ({@link RetryRules#isThrottled}) takes
 * {@code throttleCost} of a token instead of one: the server asked for the retry, later, so it
 * costs less, as in AWS's standard retry mode (5 tokens for a throttled retry against 14 for
 * any other: the default {@value #DEFAULT_THROTTLE_COST}).
 *
 * <p>Thread-safe and lock-free: one compare-and-set per change. A success while the bucket is
 * full, the common case, only reads it. Tokens are kept in thousandths, as gRPC does.
 */
public final class RetryBudget {

	/** Default {@code maxTokens}. */
	public static final double DEFAULT_MAX_TOKENS = 10;

	/** Default {@code tokenRatio}: ten successes earn back one failure. */
	public static final double DEFAULT_TOKEN_RATIO = 0.1;

	/** Default {@code throttleCost}: AWS's 5 tokens for a throttled retry against 14 for any other. */
	public static final double DEFAULT_THROTTLE_COST = 0.357;

	/** The largest {@code maxTokens}: a larger bucket would never throttle in practice. */
	public static final double MAX_TOKENS_LIMIT = 1_000_000;

	private static final long UNIT = 1000;

	private static final VarHandle MILLI_TOKENS;

	static {
		try {
			MILLI_TOKENS = MethodHandles.lookup().findVarHandle(RetryBudget.class, "milliTokens", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final long maxMilliTokens;

	private final long threshold;

	private final long ratioMilliTokens;

	private final long throttleMilliTokens;

	@SuppressWarnings("unused") // through MILLI_TOKENS
	private volatile long milliTokens;

	private RetryBudget(double maxTokens, double tokenRatio, double throttleCost) {
		this.maxMilliTokens = Math.round(maxTokens * UNIT);
		this.threshold = this.maxMilliTokens / 2;
		this.ratioMilliTokens = Math.round(tokenRatio * UNIT);
		this.throttleMilliTokens = Math.round(throttleCost * UNIT);
		this.milliTokens = this.maxMilliTokens;
	}

	/**
	 * A new, full budget.
	 * @param maxTokens the bucket's size: at least 1 and at most {@value #MAX_TOKENS_LIMIT};
	 * retries stop when half of it is spent
	 * @param tokenRatio the tokens a successful call gives back: more than 0 and at most
	 * {@code maxTokens}, kept to three decimals
	 * @return the budget
	 * @throws InvalidPolicyException naming the setting, the value and the rule
	 */
	public static RetryBudget of(double maxTokens, double tokenRatio) {
		return of(maxTokens, tokenRatio, DEFAULT_THROTTLE_COST);
	}

	/**
	 * A new, full budget.
	 * @param maxTokens the bucket's size, as for {@link #of(double, double)}
	 * @param tokenRatio the tokens a successful call gives back, as for {@link #of(double, double)}
	 * @param throttleCost the share of a token that a throttled failure takes: more than 0
	 * and at most 1, kept to three decimals
	 * @return the budget
	 * @throws InvalidPolicyException naming the setting, the value and the rule
	 */
	public static RetryBudget of(double maxTokens, double tokenRatio, double throttleCost) {
		if (!(maxTokens >= 1 && maxTokens <= MAX_TOKENS_LIMIT)) {
			throw new InvalidPolicyException("budget.maxTokens", maxTokens,
					"must be at least 1 and at most " + (long) MAX_TOKENS_LIMIT);
		}
		if (!(tokenRatio >= 0.001 && tokenRatio <= maxTokens)) {
			throw new InvalidPolicyException("budget.tokenRatio", tokenRatio,
					"must be at least 0.001 (tokens are kept to three decimals) and at most {0} ({1})",
					new InvalidPolicyException.Setting("budget.maxTokens"), maxTokens);
		}
		if (!(throttleCost >= 0.001 && throttleCost <= 1)) {
			throw new InvalidPolicyException("budget.throttleCost", throttleCost,
					"must be at least 0.001 (tokens are kept to three decimals) and at most 1 (a whole token, as any other retry takes)");
		}
		return new RetryBudget(maxTokens, tokenRatio, throttleCost);
	}

	/** @return a new, full budget with the defaults (10 tokens, ratio 0.1) */
	public static RetryBudget defaults() {
		return of(DEFAULT_MAX_TOKENS, DEFAULT_TOKEN_RATIO);
	}

	/**
	 * Fills the budget up, as it was new: for tests that each start from the configured
	 * budget, whatever an earlier test spent.
	 */
	public void refill() {
		this.milliTokens = this.maxMilliTokens;
	}

	/** @return a new, full budget with the same settings, sharing no state with this one */
	public RetryBudget copy() {
		return new RetryBudget(getMaxTokens(), getTokenRatio(), getThrottleCost());
	}

	/**
	 * A new budget with other settings that is as full as this one is now: the same fraction of
	 * its {@code maxTokens}, so that a budget that stopped retries still stops them, and one
	 * that allowed them still allows them. (Keeping the tokens themselves would not: 18 of 20
	 * tokens allow retries, 18 of 100 do not.) This budget is left as it is, for the calls that
	 * still hold it.
	 * @param maxTokens the new bucket's size, as for {@link #of}
	 * @param tokenRatio the tokens a successful call gives back, as for {@link #of}
	 * @param throttleCost the share of a token a throttled failure takes, as for {@link #of}
	 * @return the new budget
	 * @throws InvalidPolicyException naming the setting, the value and the rule
	 */
	public RetryBudget resize(double maxTokens, double tokenRatio, double throttleCost) {
		RetryBudget resized = of(maxTokens, tokenRatio, throttleCost);
		long milliTokens = this.milliTokens;
		resized.milliTokens = (milliTokens >= this.maxMilliTokens) ? resized.maxMilliTokens
				: Math.round((double) milliTokens * resized.maxMilliTokens / this.maxMilliTokens);
		return resized;
	}

	/** @return the bucket's size */
	public double getMaxTokens() {
		return (double) this.maxMilliTokens / UNIT;
	}

	/** @return the tokens a successful call gives back */
	public double getTokenRatio() {
		return (double) this.ratioMilliTokens / UNIT;
	}

	/** @return the share of a token that a failure classified as throttling takes */
	public double getThrottleCost() {
		return (double) this.throttleMilliTokens / UNIT;
	}

	/** @return the tokens left now */
	public double getTokens() {
		return (double) this.milliTokens / UNIT;
	}

	/**
	 * @return whether a failure now would still be retried: the tokens left after it would be
	 * more than half the bucket
	 */
	public boolean allowsRetries() {
		return this.milliTokens - UNIT > this.threshold;
	}

	/**
	 * Takes one token for a failed attempt whose failure the policy classifies as retryable.
	 * @return whether a retry is still allowed after it
	 */
	public boolean onFailure() {
		return onFailure(false);
	}

	/**
	 * Takes one token for a failed attempt whose failure the policy classifies as retryable,
	 * or {@code throttleCost} of one when it is throttling.
	 * @param throttled whether the failure is throttling
	 * @return whether a retry is still allowed after it
	 */
	public boolean onFailure(boolean throttled) {
		long cost = throttled ? this.throttleMilliTokens : UNIT;
		long current;
		long next;
		do {
			current = this.milliTokens;
			next = Math.max(0, current - cost);
		}
		while (current != next && !MILLI_TOKENS.weakCompareAndSet(this, current, next));
		return next > this.threshold;
	}

	/** Gives back {@code tokenRatio} for a successful call. */
	public void onSuccess() {
		long current;
		long next;
		do {
			current = this.milliTokens;
			if (current >= this.maxMilliTokens) {
				return;
			}
			next = Math.min(this.maxMilliTokens, current + this.ratioMilliTokens);
		}
		while (!MILLI_TOKENS.weakCompareAndSet(this, current, next));
	}

	@Override
	public String toString() {
		return "RetryBudget[maxTokens=" + getMaxTokens() + ", tokenRatio=" + getTokenRatio() + ", throttleCost="
				+ getThrottleCost() + ", tokens=" + getTokens() + "]";
	}

}
