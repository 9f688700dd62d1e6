package dev.backoff.spring.metrics;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import dev.backoff.RetryBudget;
import dev.backoff.spring.config.BackoffPolicies;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

/**
 * The {@value #TOKENS} gauge (tag {@code policy}): the tokens left in each policy's retry
 * budget, for the policies that have one. Retries stop while it is at or below half the
 * policy's {@code max-tokens}, and resume as successful calls refill it. It follows the budget
 * in force: a budget resized at run time is read in its place, one switched on at run time gets
 * its gauge then, and one switched off (or a policy dropped by a refresh) loses it.
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
		Map<String, Gauge> gauges = new HashMap<>();
		sync(registry, gauges);
		this.policies.addChangeListener(() -> sync(registry, gauges));
	}

	/** A gauge for each policy with a budget in force, and none for the others. */
	private synchronized void sync(MeterRegistry registry, Map<String, Gauge> gauges) {
		Set<String> names = new LinkedHashSet<>();
		names.add(BackoffPolicies.DEFAULTS);
		names.addAll(this.policies.getNames());
		for (String name : names) {
			if (this.policies.getBudget(name) != null && !gauges.containsKey(name)) {
				// Read through the policies: a change at run time may put a resized budget in place.
				gauges.put(name, Gauge.builder(TOKENS, this.policies, (policies) -> tokens(policies.getBudget(name)))
					.tag("policy", name)
					.description("Tokens left in the policy's retry budget; retries stop at half of max-tokens")
					.strongReference(true)
					.register(registry));
			}
		}
		gauges.entrySet().removeIf((entry) -> {
			if (names.contains(entry.getKey()) && this.policies.getBudget(entry.getKey()) != null) {
				return false;
			}
			registry.remove(entry.getValue());
			return true;
		});
	}

	private static double tokens(@Nullable RetryBudget budget) {
		// Only between a budget switched off and its gauge's removal.
		return (budget != null) ? budget.getTokens() : Double.NaN;
	}

}
