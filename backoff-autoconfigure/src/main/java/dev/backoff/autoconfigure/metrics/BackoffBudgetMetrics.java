package dev.backoff.autoconfigure.metrics;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.backoff.BackoffPolicy;
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
		Map<String, BackoffPolicy> all = new LinkedHashMap<>();
		all.put(BackoffPolicies.DEFAULTS, this.policies.getDefaults());
		this.policies.getNames().forEach((name) -> all.put(name, this.policies.get(name)));
		all.forEach((name, policy) -> {
			RetryBudget budget = policy.getBudget();
			if (budget != null) {
				Gauge.builder(TOKENS, budget, RetryBudget::getTokens)
					.tag("policy", name)
					.description("Tokens left in the policy's retry budget; retries stop at half of max-tokens")
					.strongReference(true)
					.register(registry);
			}
		});
	}

}
