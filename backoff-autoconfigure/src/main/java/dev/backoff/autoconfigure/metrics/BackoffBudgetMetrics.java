package dev.backoff.autoconfigure.metrics;

import java.util.LinkedHashSet;
import java.util.Set;

import dev.backoff.RetryBudget;
import dev.backoff.autoconfigure.BackoffPolicies;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The {@value #TOKENS} gauge (tag {@code policy}): the tokens left in each policy's retry
 * budget, for the policies that have one. Retries stop while it is at or below half the
 * policy's {@code max-tokens}, and resume as successful calls refill it.
 */
public class BackoffBudgetMetrics implements MeterBinder {

	/** Tokens left in a policy's retry budget. */
	public static final String TOKENS = "backoff.budget.tokens";

	private final BackoffPolicies policies;

	/**
	 * @param policies the application's policies
	 */
	public BackoffBudgetMetrics(BackoffPolicies policies) {
		this.policies = policies;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Set<String> names = new LinkedHashSet<>();
		names.add(BackoffPolicies.DEFAULTS);
		names.addAll(this.policies.getNames());
		for (String name : names) {
			RetryBudget budget = this.policies.getBudget(name);
			if (budget != null) {
				Gauge.builder(TOKENS, budget, RetryBudget::getTokens)
					.tag("policy", name)
					.description("Tokens left in the policy's retry budget; retries stop at half of max-tokens")
					.strongReference(true)
					.register(registry);
			}
		}
	}

}
