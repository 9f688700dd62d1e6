package dev.backoff.spring.config;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.backoff.BackoffPolicy;
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

	/** Whether {@code @Backoff} methods are retried. */
	private boolean enabled = true;

	/** How {@code @Backoff} calls are intercepted. */
	private Mode mode = Mode.PROXY;

	/** What a {@code @Backoff} call does inside an attempt of another. */
	private Nested nested = Nested.OUTERMOST;

	/** The settings every policy inherits. */
	private final PolicySettings defaults = new PolicySettings();

	/** Named policies, each over {@code defaults}. */
	private final Map<String, PolicySettings> policies = new LinkedHashMap<>();

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

	public PolicySettings getDefaults() {
		return this.defaults;
	}

	public Map<String, PolicySettings> getPolicies() {
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

}
