package dev.backoff.benchmarks.startup;

import dev.backoff.benchmarks.startup.StartupApplication.ActuatorConfig;
import dev.backoff.benchmarks.startup.StartupApplication.BackoffConfig;
import dev.backoff.benchmarks.startup.StartupApplication.FrameworkActuatorConfig;
import dev.backoff.benchmarks.startup.StartupApplication.FrameworkConfig;
import dev.backoff.benchmarks.startup.StartupApplication.PlainConfig;
import dev.backoff.benchmarks.startup.StartupSources.Flavour;

import static dev.backoff.benchmarks.overhead.Contexts.NO_TRACER;

/**
 * The applications the start-up benchmark compares, in the order it runs them: the same beans
 * in the same kind of context, only the retry library differing. Three kinds of context: the
 * libraries' auto-configurations imported with a meter registry; an application with the
 * actuator ({@code -actuator}); and the same with tracing ({@code -tracing}).
 */
public enum StartupVariant {

	/** The beans without annotations, and no retry library: the baseline. */
	PLAIN("plain", Flavour.PLAIN, PlainConfig.class),

	/** {@code @Backoff} on every method, Backoff's auto-configuration, metrics on. */
	BACKOFF("backoff", Flavour.BACKOFF, BackoffConfig.class),

	/** As {@link #BACKOFF}, with {@code backoff.metrics.enabled=false}. */
	BACKOFF_METRICS_OFF("backoff-metrics-off", Flavour.BACKOFF, BackoffConfig.class,
			"backoff.metrics.enabled=false"),

	/** Spring Framework 7's {@code @Retryable} on every method, {@code @EnableResilientMethods}. */
	FRAMEWORK("framework", Flavour.FRAMEWORK, FrameworkConfig.class),

	/**
	 * As users run an application with {@code spring-boot-starter-actuator} and no tracer:
	 * every auto-configuration on the class path, Micrometer Tracing's left out. The baseline
	 * of the {@code -actuator} variants.
	 */
	PLAIN_ACTUATOR("plain-actuator", Flavour.PLAIN, ActuatorConfig.class, NO_TRACER, "backoff.enabled=false"),

	/** {@link #BACKOFF} in the actuator's application. */
	BACKOFF_ACTUATOR("backoff-actuator", Flavour.BACKOFF, ActuatorConfig.class, NO_TRACER),

	/**
	 * {@link #BACKOFF_ACTUATOR} with {@code backoff.metrics.failures-at-zero=true}: each called
	 * method's failure counters registered at 0, as with a Prometheus registry.
	 */
	BACKOFF_FAILURES_AT_ZERO_ACTUATOR("backoff-failures-at-zero-actuator", Flavour.BACKOFF, ActuatorConfig.class,
			NO_TRACER, "backoff.metrics.failures-at-zero=true"),

	/** {@link #FRAMEWORK} in the actuator's application. */
	FRAMEWORK_ACTUATOR("framework-actuator", Flavour.FRAMEWORK, FrameworkActuatorConfig.class, NO_TRACER,
			"backoff.enabled=false"),

	/**
	 * The actuator's application with Micrometer Tracing's OpenTelemetry bridge, Spring Boot's
	 * default sampling (0.1). The baseline of the {@code -tracing} variants.
	 */
	PLAIN_TRACING("plain-tracing", Flavour.PLAIN, ActuatorConfig.class, "backoff.enabled=false"),

	/** {@link #BACKOFF} in the traced application. */
	BACKOFF_TRACING("backoff-tracing", Flavour.BACKOFF, ActuatorConfig.class),

	/** {@link #FRAMEWORK} in the traced application. */
	FRAMEWORK_TRACING("framework-tracing", Flavour.FRAMEWORK, FrameworkActuatorConfig.class,
			"backoff.enabled=false");

	private final String id;

	private final Flavour flavour;

	private final Class<?> configuration;

	private final String[] properties;

	StartupVariant(String id, Flavour flavour, Class<?> configuration, String... properties) {
		this.id = id;
		this.flavour = flavour;
		this.configuration = configuration;
		this.properties = properties;
	}

	/** @return the variant with the same application and no retry library */
	public StartupVariant baseline() {
		return of(setup("plain"));
	}

	/** @return the variant with the same application and Spring Framework's {@code @Retryable} */
	public StartupVariant framework() {
		return of(setup("framework"));
	}

	/** @return {@code library}'s variant with this one's application: the same suffix of the id */
	private String setup(String library) {
		for (String suffix : new String[] { "-actuator", "-tracing" }) {
			if (this.id.endsWith(suffix)) {
				return library + suffix;
			}
		}
		return library;
	}

	/** @return the name printed in the table and passed to the child JVM */
	public String id() {
		return this.id;
	}

	/** @return which generated classes the variant runs */
	public Flavour flavour() {
		return this.flavour;
	}

	Class<?> configuration() {
		return this.configuration;
	}

	String[] properties() {
		return this.properties.clone();
	}

	/**
	 * @param id a variant's {@link #id()}
	 * @return the variant
	 */
	public static StartupVariant of(String id) {
		for (StartupVariant variant : values()) {
			if (variant.id.equals(id)) {
				return variant;
			}
		}
		throw new IllegalArgumentException("No start-up variant '" + id + "'");
	}

}
