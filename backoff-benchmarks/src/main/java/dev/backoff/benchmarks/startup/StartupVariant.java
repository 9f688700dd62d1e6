package dev.backoff.benchmarks.startup;

import dev.backoff.benchmarks.startup.StartupApplication.BackoffConfig;
import dev.backoff.benchmarks.startup.StartupApplication.FrameworkConfig;
import dev.backoff.benchmarks.startup.StartupApplication.PlainConfig;
import dev.backoff.benchmarks.startup.StartupSources.Flavour;

/**
 * The applications the start-up benchmark compares, in the order it runs them: the same beans
 * in the same kind of context, only the retry library differing.
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
	FRAMEWORK("framework", Flavour.FRAMEWORK, FrameworkConfig.class);

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
