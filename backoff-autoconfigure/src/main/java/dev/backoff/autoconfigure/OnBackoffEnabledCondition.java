package dev.backoff.autoconfigure;

import dev.backoff.spring.config.BackoffConfigurationException;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches unless {@code backoff.enabled} is {@code false}, and stops start-up when one of
 * Backoff's switches has a value that a property condition would silently read as "no":
 * {@code backoff.enabled}, {@code backoff.metrics.enabled} or {@code backoff.observations.enabled} other than {@code true} or
 * {@code false} ({@code flase}, {@code yes}, {@code "TRUE "}), or {@code backoff.mode} other
 * than {@code proxy} or {@code aspectj}. Evaluated first, before any other condition.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class OnBackoffEnabledCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Environment environment = context.getEnvironment();
		Boolean enabled = flag(environment, "backoff.enabled");
		flag(environment, "backoff.metrics.enabled");
		flag(environment, "backoff.observations.enabled");
		String mode = environment.getProperty("backoff.mode");
		if (mode != null && !mode.equalsIgnoreCase("proxy") && !mode.equalsIgnoreCase("aspectj")) {
			throw new BackoffConfigurationException("backoff.mode", mode, "must be one of proxy, aspectj",
					"Set backoff.mode to proxy (the default) or aspectj.");
		}
		if (Boolean.FALSE.equals(enabled)) {
			return ConditionOutcome.noMatch("backoff.enabled is false");
		}
		return ConditionOutcome.match((enabled != null) ? "backoff.enabled is true" : "backoff.enabled is not set");
	}

	private static @Nullable Boolean flag(Environment environment, String name) {
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
