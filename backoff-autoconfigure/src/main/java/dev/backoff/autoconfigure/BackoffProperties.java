package dev.backoff.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.backoff.BackoffPolicy;
import dev.backoff.Jitter;
import dev.backoff.Nested;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of Backoff: {@code backoff.defaults} and named policies under
 * {@code backoff.policies.<name>}, each inheriting every setting it leaves unset from the
 * defaults, which in turn fall back to {@link BackoffPolicy}'s {@code DEFAULT_*} constants.
 */
@ConfigurationProperties("backoff")
public class BackoffProperties {

	/**
	 * Whether @Backoff methods are retried. When false no proxy is created and every call
	 * goes straight through.
	 */
	private boolean enabled = true;

	/**
	 * How @Backoff calls are intercepted: 'proxy' (Spring AOP proxies, the default) or
	 * 'aspectj' (the AspectJ-woven BackoffAspect, which also retries a bean calling its own
	 * methods, and private and final methods).
	 */
	private Mode mode = Mode.PROXY;

	/**
	 * What a @Backoff call does when it runs inside an attempt of another retrying call:
	 * 'outermost' (the default) makes it a single attempt when the outer call would retry
	 * its failure, so nested layers do not multiply retries; 'independent' lets every layer
	 * retry under its own policy.
	 */
	private Nested nested = Nested.OUTERMOST;

	/**
	 * Settings every named policy starts from, and the policy of a @Backoff that names none.
	 */
	private final Policy defaults = new Policy();

	/**
	 * Named policies, referenced as @Backoff("name"); each inherits what it leaves unset
	 * from 'backoff.defaults'.
	 */
	private final Map<String, Policy> policies = new LinkedHashMap<>();

	/**
	 * Metrics of retried calls.
	 */
	private final Metrics metrics = new Metrics();

	/**
	 * Micrometer observations (traces, and timers through Spring Boot's meter handler) of
	 * retried calls.
	 */
	private final Observations observations = new Observations();

	/**
	 * The scheduler of non-blocking retries (CompletionStage methods).
	 */
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

		/**
		 * Whether every call of a @Backoff method is a backoff.call observation, with one
		 * backoff.attempt observation under it per attempt, when an ObservationRegistry is
		 * present. When not set, calls are observed only if an observation handler other than
		 * a meter handler (a tracer, say) is defined: Spring Boot's meter handler alone would
		 * only add timers. When false, calls cost nothing more than without a registry.
		 */
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

		/**
		 * Whether to record the backoff.* meters when Micrometer and a MeterRegistry are
		 * present.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Scheduler settings.
	 */
	public static class Scheduler {

		/**
		 * Number of timer threads, which end the waits of non-blocking retries; the retried
		 * attempts run on other threads, made on demand. Default: the number of processors,
		 * at least 2. With spring.threads.virtual.enabled=true all are virtual threads.
		 */
		private @Nullable Integer poolSize;

		/**
		 * Prefix of the names of the scheduler's threads.
		 */
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

		/**
		 * Number of calls allowed, the first included (3 = 1 call + 2 retries; 1 = no retry).
		 * Default 3.
		 */
		private @Nullable Integer maxAttempts;

		/**
		 * Ceiling of the first retry's delay; each later ceiling is the one before times the
		 * multiplier. Default 100ms.
		 */
		private @Nullable Duration baseDelay;

		/**
		 * Cap of every delay. Must be at least the base delay. Default 20s.
		 */
		private @Nullable Duration maxDelay;

		/**
		 * Factor between consecutive ceilings, at least 1 (1 = fixed delay). Its excess over
		 * 1 is the ratio of the next wait to the time already waited: 1.1 waits about 10% of
		 * the elapsed time. Default 2.0.
		 */
		private @Nullable Double multiplier;

		/**
		 * How each delay is drawn from its ceiling: none, full, equal or decorrelated.
		 * Default full.
		 */
		private @Nullable Jitter jitter;

		/**
		 * Budget for all attempts plus waits, from the first call; a wait that would end
		 * past it is not started. Unset for no limit.
		 */
		private @Nullable Duration maxElapsed;

		/**
		 * Exception types to retry, matched along the cause chain. Unset: every Exception
		 * (never an Error); with spring-web present, HTTP failures by status (5xx, 408, 429 and
		 * I/O errors retried, any other 4xx not) and other exceptions as without it.
		 */
		private @Nullable List<String> retryOn;

		/**
		 * Exception types never to retry, matched along the cause chain; wins over retry-on.
		 */
		private @Nullable List<String> abortOn;

		/**
		 * SpEL expression on #exception that decides whether a failure is retried, from what it
		 * says rather than only its class, such as "#exception.code == 'THROTTLED'"; bean
		 * references allowed ("@transientErrors.test(#exception)"). abort-on still wins and
		 * retry-on still narrows; it replaces the default classification, so it may also widen it.
		 */
		private @Nullable String retryOnException;

		/**
		 * Longest server Retry-After hint to honour; a longer hint ends the call at once
		 * rather than wait in vain. Default: the max delay.
		 */
		private @Nullable Duration maxRetryAfter;

		/**
		 * First ceiling of the retries after a failure classified as throttling (HTTP 429,
		 * 503 with Retry-After, or a throttle-on type): they wait by the same formula from this
		 * base, as AWS's SDKs wait from 1s after throttling. At least base-delay. Unset:
		 * throttled retries wait by the normal schedule.
		 */
		private @Nullable Duration throttleBaseDelay;

		/**
		 * Cap of every wait after throttling; at least throttle-base-delay and max-delay.
		 * Default: max-delay, or throttle-base-delay when that is longer.
		 */
		private @Nullable Duration throttleMaxDelay;

		/**
		 * Exception types classified as throttling, matched along the cause chain, besides
		 * HTTP 429 and 503 with Retry-After when spring-web is present. Their retries wait by
		 * the throttling schedule and cost budget.throttle-cost; they are not made retryable.
		 */
		private @Nullable List<String> throttleOn;

		/**
		 * Whether an HTTP client (BackoffHttp) retries POST and PATCH requests that carry no
		 * Idempotency-Key header. Default false: they may have taken effect before failing, so
		 * only GET, HEAD, OPTIONS, PUT, DELETE, TRACE and keyed requests are retried.
		 */
		private @Nullable Boolean retryNonIdempotent;

		/**
		 * Retry budget shared by every call of the policy: stops retries while the dependency
		 * fails for everyone.
		 */
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

		/**
		 * Whether the policy has a retry budget. Default: on when max-tokens or token-ratio
		 * is set, otherwise off.
		 */
		private @Nullable Boolean enabled;

		/**
		 * Size of the bucket, which starts full. Each failed attempt worth a retry takes one
		 * token; retries stop while half the bucket or less is left. Default 10.
		 */
		private @Nullable Double maxTokens;

		/**
		 * Tokens each successful call gives back (at least 0.001). Default 0.1: ten successes
		 * earn back one failure.
		 */
		private @Nullable Double tokenRatio;

		/**
		 * Share of a token that a failure classified as throttling takes (more than 0, at
		 * most 1): the server asked for the retry, so it costs less. Default 0.357, AWS's 5
		 * tokens for a throttled retry against 14 for any other.
		 */
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
