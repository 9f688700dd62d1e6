package dev.backoff.spring.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.backoff.BackoffPolicy;
import dev.backoff.HedgeTokens;
import dev.backoff.Jitter;
import dev.backoff.spring.data.DataAccessRetry;
import org.jspecify.annotations.Nullable;

/**
 * The settings of one policy, {@code backoff.defaults} or {@code backoff.policies.<name>}, as
 * {@code application.yml} gives them; {@code null} means "inherit". Each setting has one row in
 * the table at the end ({@link #ALL}), which everything that handles settings loops over: the
 * merge, the annotation's attributes, live changes, the endpoint and the projections that
 * compare them. Adding a setting here is a field, its accessors and its row (the hedging
 * settings' fields are in {@link HedgingSettings}, the overload controls' groups in
 * {@link OverloadSettings}, which this extends, and which extends it); the configuration
 * metadata JSON describes it for the IDE, and the core takes it on its builder.
 */
public class PolicySettings extends OverloadSettings {

	/** Calls allowed, the first included (3 = 1 call + 2 retries). */
	private @Nullable Integer maxAttempts;

	/** Ceiling of the first retry's delay. */
	private @Nullable Duration baseDelay;

	/** Cap of every delay. */
	private @Nullable Duration maxDelay;

	/** Factor between consecutive ceilings, at least 1. */
	private @Nullable Double multiplier;

	/** How each delay is drawn from its ceiling. */
	private @Nullable Jitter jitter;

	/** Budget for all attempts plus waits, from the first call. */
	private @Nullable Duration maxElapsed;

	/** How long one attempt of a non-blocking call may take. */
	private @Nullable Duration attemptTimeout;

	/** Exception types to retry, by class name. */
	private @Nullable List<String> retryOn;

	/** Exception types never to retry, by class name; wins over retry-on. */
	private @Nullable List<String> abortOn;

	/** SpEL on #exception that decides whether a failure is retried. */
	private @Nullable String retryOnException;

	/** Longest server Retry-After hint to honour. */
	private @Nullable Duration maxRetryAfter;

	/** First ceiling of the retries after throttling. */
	private @Nullable Duration throttleBaseDelay;

	/** Cap of every wait after throttling. */
	private @Nullable Duration throttleMaxDelay;

	/** Exception types classified as throttling, by class name. */
	private @Nullable List<String> throttleOn;

	/** Whether HTTP clients retry POST and PATCH without an Idempotency-Key. */
	private @Nullable Boolean retryNonIdempotent;

	/** How data-access failures are classified where retry-on is not set: any or transient. */
	private @Nullable DataAccessRetry retryOnDataAccess;

	private final Budget budget = new Budget();

	public @Nullable Integer getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(@Nullable Integer value) {
		this.maxAttempts = value;
	}

	public @Nullable Duration getBaseDelay() {
		return this.baseDelay;
	}

	public void setBaseDelay(@Nullable Duration value) {
		this.baseDelay = value;
	}

	public @Nullable Duration getMaxDelay() {
		return this.maxDelay;
	}

	public void setMaxDelay(@Nullable Duration value) {
		this.maxDelay = value;
	}

	public @Nullable Double getMultiplier() {
		return this.multiplier;
	}

	public void setMultiplier(@Nullable Double value) {
		this.multiplier = value;
	}

	public @Nullable Jitter getJitter() {
		return this.jitter;
	}

	public void setJitter(@Nullable Jitter value) {
		this.jitter = value;
	}

	public @Nullable Duration getMaxElapsed() {
		return this.maxElapsed;
	}

	public void setMaxElapsed(@Nullable Duration value) {
		this.maxElapsed = value;
	}

	public @Nullable Duration getAttemptTimeout() {
		return this.attemptTimeout;
	}

	public void setAttemptTimeout(@Nullable Duration value) {
		this.attemptTimeout = value;
	}

	public @Nullable List<String> getRetryOn() {
		return this.retryOn;
	}

	public void setRetryOn(@Nullable List<String> value) {
		this.retryOn = (value != null) ? new ArrayList<>(value) : null;
	}

	public @Nullable List<String> getAbortOn() {
		return this.abortOn;
	}

	public void setAbortOn(@Nullable List<String> value) {
		this.abortOn = (value != null) ? new ArrayList<>(value) : null;
	}

	public @Nullable String getRetryOnException() {
		return this.retryOnException;
	}

	public void setRetryOnException(@Nullable String value) {
		this.retryOnException = value;
	}

	public @Nullable Duration getMaxRetryAfter() {
		return this.maxRetryAfter;
	}

	public void setMaxRetryAfter(@Nullable Duration value) {
		this.maxRetryAfter = value;
	}

	public @Nullable Duration getThrottleBaseDelay() {
		return this.throttleBaseDelay;
	}

	public void setThrottleBaseDelay(@Nullable Duration value) {
		this.throttleBaseDelay = value;
	}

	public @Nullable Duration getThrottleMaxDelay() {
		return this.throttleMaxDelay;
	}

	public void setThrottleMaxDelay(@Nullable Duration value) {
		this.throttleMaxDelay = value;
	}

	public @Nullable List<String> getThrottleOn() {
		return this.throttleOn;
	}

	public void setThrottleOn(@Nullable List<String> value) {
		this.throttleOn = (value != null) ? new ArrayList<>(value) : null;
	}

	public @Nullable Boolean getRetryNonIdempotent() {
		return this.retryNonIdempotent;
	}

	public void setRetryNonIdempotent(@Nullable Boolean value) {
		this.retryNonIdempotent = value;
	}

	public @Nullable DataAccessRetry getRetryOnDataAccess() {
		return this.retryOnDataAccess;
	}

	public void setRetryOnDataAccess(@Nullable DataAccessRetry value) {
		this.retryOnDataAccess = value;
	}

	public Budget getBudget() {
		return this.budget;
	}

	/**
	 * A policy's retry budget, a token bucket as in gRPC's retry throttling; {@code null}
	 * means "inherit". On when 'enabled' is true, or when max-tokens, token-ratio or
	 * throttle-cost is set (here or in backoff.defaults) and 'enabled' is not false. Each named
	 * policy gets its own bucket, even when its settings come from backoff.defaults.
	 */
	public static class Budget {

		/** Whether the policy has a retry budget. */
		private @Nullable Boolean enabled;

		/** Size of the bucket, which starts full. */
		private @Nullable Double maxTokens;

		/** Tokens each successful call gives back. */
		private @Nullable Double tokenRatio;

		/** Share of a token that a throttled failure takes. */
		private @Nullable Double throttleCost;

		public @Nullable Boolean getEnabled() {
			return this.enabled;
		}

		public void setEnabled(@Nullable Boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable Double getMaxTokens() {
			return this.maxTokens;
		}

		public void setMaxTokens(@Nullable Double maxTokens) {
			this.maxTokens = maxTokens;
		}

		public @Nullable Double getTokenRatio() {
			return this.tokenRatio;
		}

		public void setTokenRatio(@Nullable Double tokenRatio) {
			this.tokenRatio = tokenRatio;
		}

		public @Nullable Double getThrottleCost() {
			return this.throttleCost;
		}

		public void setThrottleCost(@Nullable Double throttleCost) {
			this.throttleCost = throttleCost;
		}

	}

	// The table: one row per setting, in the order the endpoint lists them. A row names the
	// setting once (its Java property path), reads and writes it here, puts it on the core's
	// builder, and reads the value in force back as the YAML writes it.

	static final PolicySetting<Integer> MAX_ATTEMPTS = PolicySetting.of("maxAttempts", Integer.class, "3",
			PolicySettings::getMaxAttempts, PolicySettings::setMaxAttempts, BackoffPolicy.Builder::maxAttempts,
			(p) -> p.schedule().getMaxAttempts());

	static final PolicySetting<Duration> BASE_DELAY = PolicySetting.of("baseDelay", Duration.class, "250ms",
			PolicySettings::getBaseDelay, PolicySettings::setBaseDelay, BackoffPolicy.Builder::baseDelay,
			(p) -> p.schedule().getBaseDelay());

	static final PolicySetting<Duration> MAX_DELAY = PolicySetting.of("maxDelay", Duration.class, "5s",
			PolicySettings::getMaxDelay, PolicySettings::setMaxDelay, BackoffPolicy.Builder::maxDelay,
			(p) -> p.schedule().getMaxDelay());

	static final PolicySetting<Double> MULTIPLIER = PolicySetting.of("multiplier", Double.class, "2.0",
			PolicySettings::getMultiplier, PolicySettings::setMultiplier, BackoffPolicy.Builder::multiplier,
			(p) -> p.schedule().getMultiplier());

	static final PolicySetting<Jitter> JITTER = PolicySetting.of("jitter", Jitter.class, "full",
			PolicySettings::getJitter, PolicySettings::setJitter, BackoffPolicy.Builder::jitter,
			(p) -> p.schedule().getJitter());

	static final PolicySetting<Duration> MAX_ELAPSED = PolicySetting.of("maxElapsed", Duration.class, "30s",
			PolicySettings::getMaxElapsed, PolicySettings::setMaxElapsed, BackoffPolicy.Builder::maxElapsed,
			(p) -> p.rules().getMaxElapsed());

	static final PolicySetting<Duration> ATTEMPT_TIMEOUT = PolicySetting.of("attemptTimeout", Duration.class, "2s",
			PolicySettings::getAttemptTimeout, PolicySettings::setAttemptTimeout, BackoffPolicy.Builder::attemptTimeout,
			(p) -> p.rules().getAttemptTimeout());

	static final PolicySetting<Duration> HEDGE_DELAY = PolicySetting.of("hedgeDelay", Duration.class, "50ms",
			PolicySettings::getHedgeDelay, PolicySettings::setHedgeDelay, BackoffPolicy.Builder::hedgeDelay,
			(p) -> p.policy().getHedging().getDelay());

	static final PolicySetting<Integer> MAX_HEDGES = PolicySetting.of("maxHedges", Integer.class, "1",
			PolicySettings::getMaxHedges, PolicySettings::setMaxHedges, BackoffPolicy.Builder::maxHedges,
			// Left out while off, as the settings that are unset are.
			(p) -> p.policy().getHedging().isEnabled() ? p.policy().getHedging().getMaxHedges() : null);

	static final PolicySetting<Double> HEDGE_PERCENTILE = PolicySetting.of("hedgePercentile", Double.class, "95",
			PolicySettings::getHedgePercentile, PolicySettings::setHedgePercentile,
			BackoffPolicy.Builder::hedgePercentile,
			(p) -> (p.policy().getHedging().getPercentile() > 0) ? p.policy().getHedging().getPercentile() : null);

	static final PolicySetting<Double> HEDGE_MAX_EXTRA_LOAD = PolicySetting.of("hedgeMaxExtraLoad", Double.class, "0.05",
			PolicySettings::getHedgeMaxExtraLoad, PolicySettings::setHedgeMaxExtraLoad, null,
			// Not the policy's but its bucket's, as the budget's settings. Listed where the policy hedges, and
			// where it is not the default: a method may hedge by its annotation alone.
			(p) -> (p.hedgeTokens() != null && (p.policy().getHedging().isEnabled()
					|| p.hedgeTokens().getMaxExtraLoad() != HedgeTokens.DEFAULT_MAX_EXTRA_LOAD))
							? p.hedgeTokens().getMaxExtraLoad() : null);

	static final PolicySetting<List<String>> RETRY_ON = PolicySetting.resolved("retryOn", List.class, "java.io.IOException",
			PolicySettings::getRetryOn, PolicySettings::setRetryOn,
			(builder, names, at) -> builder.retryOn(at.types(names)), (p) -> p.rules().getRetryOn()).fixed();

	static final PolicySetting<List<String>> ABORT_ON = PolicySetting.resolved("abortOn", List.class, "java.io.IOException",
			PolicySettings::getAbortOn, PolicySettings::setAbortOn,
			(builder, names, at) -> builder.abortOn(at.types(names)), (p) -> p.rules().getAbortOn()).fixed();

	static final PolicySetting<String> RETRY_ON_EXCEPTION = PolicySetting.resolved("retryOnException", String.class,
			"#exception.code == 'THROTTLED'", PolicySettings::getRetryOnException, PolicySettings::setRetryOnException,
			(builder, text, at) -> builder.retryOnException(at.predicate(text)),
			(p) -> p.rules().getRetryOnException()).fixed();

	static final PolicySetting<Duration> MAX_RETRY_AFTER = PolicySetting.of("maxRetryAfter", Duration.class, "10s",
			PolicySettings::getMaxRetryAfter, PolicySettings::setMaxRetryAfter, BackoffPolicy.Builder::maxRetryAfter,
			(p) -> p.policy().getMaxRetryAfter());

	static final PolicySetting<Duration> THROTTLE_BASE_DELAY = PolicySetting.of("throttleBaseDelay", Duration.class,
			"1s", PolicySettings::getThrottleBaseDelay, PolicySettings::setThrottleBaseDelay,
			BackoffPolicy.Builder::throttleBaseDelay,
			(p) -> (p.schedule().getThrottling() != null) ? p.schedule().getThrottling().getBaseDelay() : null);

	static final PolicySetting<Duration> THROTTLE_MAX_DELAY = PolicySetting.of("throttleMaxDelay", Duration.class,
			"20s", PolicySettings::getThrottleMaxDelay, PolicySettings::setThrottleMaxDelay,
			BackoffPolicy.Builder::throttleMaxDelay,
			(p) -> (p.schedule().getThrottling() != null) ? p.schedule().getThrottling().getMaxDelay() : null);

	static final PolicySetting<List<String>> THROTTLE_ON = PolicySetting.resolved("throttleOn", List.class,
			"java.io.IOException", PolicySettings::getThrottleOn, PolicySettings::setThrottleOn,
			(builder, names, at) -> builder.throttleOn(at.types(names)), (p) -> p.rules().getThrottleOn()).fixed();

	static final PolicySetting<Boolean> RETRY_NON_IDEMPOTENT = PolicySetting.of("retryNonIdempotent", Boolean.class,
			"true", PolicySettings::getRetryNonIdempotent, PolicySettings::setRetryNonIdempotent, null,
			EffectivePolicy::retryNonIdempotent);

	static final PolicySetting<DataAccessRetry> RETRY_ON_DATA_ACCESS = PolicySetting.resolved("retryOnDataAccess",
			DataAccessRetry.class, "transient", PolicySettings::getRetryOnDataAccess,
			PolicySettings::setRetryOnDataAccess, PolicyMerge.At::classifyDataAccess, EffectivePolicy::retryOnDataAccess);

	static final PolicySetting<Boolean> BUDGET_ENABLED = PolicySetting.of("budget.enabled", Boolean.class, "true",
			(s) -> s.getBudget().getEnabled(), (s, value) -> s.getBudget().setEnabled(value), null,
			(p) -> p.budget() != null);

	static final PolicySetting<Double> BUDGET_MAX_TOKENS = PolicySetting.of("budget.maxTokens", Double.class, "10",
			(s) -> s.getBudget().getMaxTokens(), (s, value) -> s.getBudget().setMaxTokens(value), null,
			(p) -> (p.budget() != null) ? p.budget().getMaxTokens() : null);

	static final PolicySetting<Double> BUDGET_TOKEN_RATIO = PolicySetting.of("budget.tokenRatio", Double.class, "0.1",
			(s) -> s.getBudget().getTokenRatio(), (s, value) -> s.getBudget().setTokenRatio(value), null,
			(p) -> (p.budget() != null) ? p.budget().getTokenRatio() : null);

	static final PolicySetting<Double> BUDGET_THROTTLE_COST = PolicySetting.of("budget.throttleCost", Double.class,
			"0.3", (s) -> s.getBudget().getThrottleCost(), (s, value) -> s.getBudget().setThrottleCost(value), null,
			(p) -> (p.budget() != null) ? p.budget().getThrottleCost() : null);

	/** Every row, in order. */
	static final List<PolicySetting<?>> ALL = List.of(MAX_ATTEMPTS, BASE_DELAY, MAX_DELAY, MULTIPLIER, JITTER,
			MAX_ELAPSED, ATTEMPT_TIMEOUT, HEDGE_DELAY, MAX_HEDGES, HEDGE_PERCENTILE, HEDGE_MAX_EXTRA_LOAD, RETRY_ON, ABORT_ON,
			RETRY_ON_EXCEPTION, MAX_RETRY_AFTER, THROTTLE_BASE_DELAY, THROTTLE_MAX_DELAY, THROTTLE_ON,
			RETRY_NON_IDEMPOTENT, RETRY_ON_DATA_ACCESS, BUDGET_ENABLED, BUDGET_MAX_TOKENS, BUDGET_TOKEN_RATIO,
			BUDGET_THROTTLE_COST, ADMISSION_ENABLED, ADMISSION_RATIO, ADMISSION_WINDOW, ADMISSION_MAX_REJECTION,
			ADMISSION_FIRST_ATTEMPTS, PACING_ENABLED);

}
