package dev.backoff.autoconfigure;

import dev.backoff.spring.config.BackoffSwitches;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
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
		Boolean enabled = BackoffSwitches.check(context.getEnvironment());
		if (Boolean.FALSE.equals(enabled)) {
			return ConditionOutcome.noMatch("backoff.enabled is false");
		}
		return ConditionOutcome.match((enabled != null) ? "backoff.enabled is true" : "backoff.enabled is not set");
	}

}
