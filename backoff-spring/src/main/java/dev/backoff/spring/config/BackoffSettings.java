package dev.backoff.spring.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.backoff.BackoffPolicy;
import dev.backoff.Jitter;
import dev.backoff.Nested;
import org.jspecify.annotations.Nullable;

/**
 * Configuration of Backoff: {@code backoff.defaults} and named policies under
 * {@code backoff.policies.<name>}, each inheriting every setting it leaves unset from the
 * defaults, which in turn fall back to {@link BackoffPolicy}'s {@code DEFAULT_*} constants.
 * Spring Boot binds it from {@code application.yml} ({@code BackoffProperties} in
 * backoff-spring-boot-autoconfigure); without Boot, {@link SettingsBinder} binds the same
 * keys from Spring's {@code Environment}. The policies are built from it by the same merge and
 * validation either way ({@link BackoffPolicies}).
 *
 * <p>Each setting is described once, for the IDE and for readers alike, in
 * backoff-spring-boot-autoconfigure's {@code additional-spring-configuration-metadata.json};
 * docs/configuration.md has a row for each.
 */
public class BackoffSettings {

	private boolean enabled = true;

	private Mode mode = Mode.PROXY;

	private Nested nested = Nested.OUTERMOST;

	private final Policy defaults = new Policy();

	private final Map<String, Policy> policies = new LinkedHashMap<>();

	private final Metrics metrics = new Metrics();

	private final Observations observations = new Observations();

	private final Scheduler scheduler = new Scheduler();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Mode getMode() {
		return this.mode;
	}

	public void setMode(Mode mode) {
		this.mode = mode;
	}

	public Nested getNested() {
		return this.nested;
	}

	public void setNested(Nested nested) {
		this.nested = nested;
	}

	public Policy getDefaults() {
		return this.defaults;
	}

	public Map<String, Policy> getPolicies() {
		return this.policies;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public Observations getObservations() {
		return this.observations;
	}

	public Scheduler getScheduler() {
		return this.scheduler;
	}

	/**
	 * How {@code @Backoff} calls are intercepted. Either way the same engine retries them, with
	 * the same policies, metrics, logging and fallbacks.
	 */
	public enum Mode {

		/**
		 * Spring AOP proxies: calls from other beans, through the proxy, are retried; a bean
		 * calling its own method, and private or final methods, are not. Needs no build or
		 * JVM setup.
		 */
		PROXY,

		/**
		 * The AspectJ-woven BackoffAspect: every call is retried, self-invocations and private
		 * and final methods included, and no proxy is created. Needs load-time weaving (the
		 * aspectjweaver agent and a META-INF/aop.xml) or compile-time weaving, and the
		 * dev.backoff:backoff-aspectj dependency.
		 */
		ASPECTJ

	}

	/**
	 * Observation settings.
	 */
	public static class Observations {

		private @Nullable Boolean enabled;

		public @Nullable Boolean getEnabled() {
			return this.enabled;
		}

		public void setEnabled(@Nullable Boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Metrics settings.
	 */
	public static class Metrics {

		private boolean enabled = true;

		private @Nullable Boolean failuresAtZero;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable Boolean getFailuresAtZero() {
			return this.failuresAtZero;
		}

		public void setFailuresAtZero(@Nullable Boolean failuresAtZero) {
			this.failuresAtZero = failuresAtZero;
		}

	}

	/**
	 * Scheduler settings.
	 */
	public static class Scheduler {

		private @Nullable Integer poolSize;

		private String threadNamePrefix = "backoff-";

		public @Nullable Integer getPoolSize() {
			return this.poolSize;
		}

		public void setPoolSize(@Nullable Integer poolSize) {
			this.poolSize = poolSize;
		}

		public String getThreadNamePrefix() {
			return this.threadNamePrefix;
		}

		public void setThreadNamePrefix(String threadNamePrefix) {
			this.threadNamePrefix = threadNamePrefix;
		}

	}

	/**
	 * The settings of one policy; {@code null} means "inherit".
	 */
	public static class Policy {

		private @Nullable Integer maxAttempts;

		private @Nullable Duration baseDelay;

		private @Nullable Duration maxDelay;

		private @Nullable Double multiplier;

		private @Nullable Jitter jitter;

		private @Nullable Duration maxElapsed;

		private @Nullable Duration attemptTimeout;

		private @Nullable List<String> retryOn;

		private @Nullable List<String> abortOn;

		private @Nullable String retryOnException;

		private @Nullable Duration maxRetryAfter;

		private @Nullable Duration throttleBaseDelay;

		private @Nullable Duration throttleMaxDelay;

		private @Nullable List<String> throttleOn;

		private @Nullable Boolean retryNonIdempotent;

		private final Budget budget = new Budget();

		public @Nullable Integer getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(@Nullable Integer maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public @Nullable Duration getBaseDelay() {
			return this.baseDelay;
		}

		public void setBaseDelay(@Nullable Duration baseDelay) {
			this.baseDelay = baseDelay;
		}

		public @Nullable Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(@Nullable Duration maxDelay) {
			this.maxDelay = maxDelay;
		}

		public @Nullable Double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(@Nullable Double multiplier) {
			this.multiplier = multiplier;
		}

		public @Nullable Jitter getJitter() {
			return this.jitter;
		}

		public void setJitter(@Nullable Jitter jitter) {
			this.jitter = jitter;
		}

		public @Nullable Duration getMaxElapsed() {
			return this.maxElapsed;
		}

		public void setMaxElapsed(@Nullable Duration maxElapsed) {
			this.maxElapsed = maxElapsed;
		}

		public @Nullable Duration getAttemptTimeout() {
			return this.attemptTimeout;
		}

		public void setAttemptTimeout(@Nullable Duration attemptTimeout) {
			this.attemptTimeout = attemptTimeout;
		}

		public @Nullable List<String> getRetryOn() {
			return this.retryOn;
		}

		public void setRetryOn(@Nullable List<String> retryOn) {
			this.retryOn = (retryOn != null) ? new ArrayList<>(retryOn) : null;
		}

		public @Nullable List<String> getAbortOn() {
			return this.abortOn;
		}

		public void setAbortOn(@Nullable List<String> abortOn) {
			this.abortOn = (abortOn != null) ? new ArrayList<>(abortOn) : null;
		}

		public @Nullable String getRetryOnException() {
			return this.retryOnException;
		}

		public void setRetryOnException(@Nullable String retryOnException) {
			this.retryOnException = retryOnException;
		}

		public @Nullable Duration getMaxRetryAfter() {
			return this.maxRetryAfter;
		}

		public void setMaxRetryAfter(@Nullable Duration maxRetryAfter) {
			this.maxRetryAfter = maxRetryAfter;
		}

		public @Nullable Duration getThrottleBaseDelay() {
			return this.throttleBaseDelay;
		}

		public void setThrottleBaseDelay(@Nullable Duration throttleBaseDelay) {
			this.throttleBaseDelay = throttleBaseDelay;
		}

		public @Nullable Duration getThrottleMaxDelay() {
			return this.throttleMaxDelay;
		}

		public void setThrottleMaxDelay(@Nullable Duration throttleMaxDelay) {
			this.throttleMaxDelay = throttleMaxDelay;
		}

		public @Nullable List<String> getThrottleOn() {
			return this.throttleOn;
		}

		public void setThrottleOn(@Nullable List<String> throttleOn) {
			this.throttleOn = throttleOn;
		}

		public @Nullable Boolean getRetryNonIdempotent() {
			return this.retryNonIdempotent;
		}

		public void setRetryNonIdempotent(@Nullable Boolean retryNonIdempotent) {
			this.retryNonIdempotent = retryNonIdempotent;
		}

		public Budget getBudget() {
			return this.budget;
		}

	}

	/**
	 * A policy's retry budget, a token bucket as in gRPC's retry throttling; {@code null}
	 * means "inherit". On when 'enabled' is true, or when max-tokens or token-ratio is set
	 * (here or in backoff.defaults) and 'enabled' is not false. Each named policy gets its own
	 * bucket, even when its settings come from backoff.defaults.
	 */
	public static class Budget {

		private @Nullable Boolean enabled;

		private @Nullable Double maxTokens;

		private @Nullable Double tokenRatio;

		private @Nullable Double throttleCost;

		public @Nullable Double getThrottleCost() {
			return this.throttleCost;
		}

		public void setThrottleCost(@Nullable Double throttleCost) {
			this.throttleCost = throttleCost;
		}

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

	}

}
