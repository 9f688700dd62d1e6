package dev.backoff.spring.config;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

import org.springframework.core.env.Environment;

/**
 * Backoff's switches, read strictly: a value that a property condition would silently read as
 * "no" ({@code flase}, {@code yes}, {@code "TRUE "}) stops start-up instead. One reading for
 * Spring Boot's conditions and {@code @EnableBackoff} alike.
 */
public final class BackoffSwitches {

	private BackoffSwitches() {
	}

	/**
	 * Checks {@code backoff.enabled}, {@code backoff.metrics.enabled},
	 * {@code backoff.metrics.failures-at-zero}, {@code backoff.observations.enabled} (each {@code true} or {@code false}) and
	 * {@code backoff.mode} ({@code proxy} or {@code aspectj}).
	 * @param environment where they are set
	 * @return {@code backoff.enabled}, or {@code null} when it is not set
	 * @throws BackoffConfigurationException naming the first switch with another value
	 */
	public static @Nullable Boolean check(Environment environment) {
		Boolean enabled = flag(environment, "backoff.enabled");
		flag(environment, "backoff.metrics.enabled");
		flag(environment, "backoff.metrics.failures-at-zero");
		flag(environment, "backoff.observations.enabled");
		String mode = environment.getProperty("backoff.mode");
		if (mode != null && !mode.equalsIgnoreCase("proxy") && !mode.equalsIgnoreCase("aspectj")) {
			throw new BackoffConfigurationException("backoff.mode", mode, "must be one of proxy, aspectj",
					"Set backoff.mode to proxy (the default) or aspectj.");
		}
		return enabled;
	}

	/**
	 * @param environment where the switch is set
	 * @param name the switch
	 * @return its value, or {@code null} when it is not set
	 * @throws BackoffConfigurationException when it is neither {@code true} nor {@code false}
	 */
	public static @Nullable Boolean flag(Environment environment, String name) {
		String value = environment.getProperty(name);
		if (value == null) {
			return null;
		}
		String lowerCase = value.toLowerCase(Locale.ROOT);
		if (!lowerCase.equals("true") && !lowerCase.equals("false")) {
			throw new BackoffConfigurationException(name, "'" + value + "'", "must be true or false",
					"Set " + name + " to true or false.");
		}
		return Boolean.valueOf(lowerCase);
	}

}
