package dev.backoff.autoconfigure.metrics;

import java.util.LinkedHashSet;
import java.util.Set;

import dev.backoff.RetryBudget;
import dev.backoff.autoconfigure.BackoffPolicies;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

/**
 * The {@value #TOKENS} gauge (tag {@code policy}): the tokens left in each policy's retry
 * budget, for the policies that have one. Retries stop while it is at or below half the
 * policy's {@code max-tokens}, and resume as successful calls refill it. It reads the budget in
 * force, so it follows a budget resized at run time; a policy that had no budget at start-up
 * has no gauge, and one whose budget is turned off at run time reads NaN.
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
			if (this.policies.getBudget(name) != null) {
				// Read through the policies: a change at run time may put a resized budget in place.
				Gauge.builder(TOKENS, this.policies, (policies) -> tokens(policies.getBudget(name)))
					.tag("policy", name)
					.description("Tokens left in the policy's retry budget; retries stop at half of max-tokens")
					.strongReference(true)
					.register(registry);
			}
		}
	}

	private static double tokens(@Nullable RetryBudget budget) {
		return (budget != null) ? budget.getTokens() : Double.NaN;
	}

}
