package dev.backoff.spring.metrics;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.backoff.BackoffPolicy;
import dev.backoff.RetryBudget;
import dev.backoff.spring.config.BackoffPolicies;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

/**
 * The gauges of each policy in force (tag {@code policy}), read through the policies so that
 * they follow live changes: a policy added by a refresh gets its gauges then, one dropped loses
 * them.
 * <ul>
 * <li>{@value #TOKENS}: the tokens left in the policy's retry budget, for the policies that
 * have one (a budget switched on at run time gets its gauge then, one switched off loses it).
 * A failure is retried only if the tokens left after it takes its share (one token, or
 * {@code throttle-cost} for throttling) are more than half of {@code max-tokens}: with 20 tokens,
 * a gauge at 11 already refuses a retry. Successful calls refill it.</li>
 * <li>{@value #MAX_DELAY}: the policy's {@code max-delay}, the cap of its computed waits, which
 * the dashboard shows beside the {@code backoff.delay} waits (an alert compares each method's
 * with its own {@code backoff.delay.ceiling}: see {@link DelayCeiling}).</li>
 * </ul>
 */
public class BackoffPolicyMetrics implements MeterBinder {

	/** Tokens left in a policy's retry budget. */
	public static final String TOKENS = "backoff.budget.tokens";

	/** The tokens gauge's description: the rule {@code RetryBudget.onFailure} applies. */
	static final String TOKENS_DESCRIPTION = "Tokens left in the policy's retry budget; a failure is retried only if "
			+ "more than half of max-tokens is left after it takes one token (throttle-cost for throttling): "
			+ "of 20 tokens, 11 already refuses";

	/** A policy's {@code max-delay}. */
	public static final String MAX_DELAY = "backoff.max.delay";

	private final BackoffPolicies policies;

	/**
	 * @param policies the application's policies
	 */
	public BackoffPolicyMetrics(BackoffPolicies policies) {
		this.policies = policies;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Map<String, Gauge> tokens = new HashMap<>();
		Map<String, Gauge> maxDelays = new HashMap<>();
		sync(registry, tokens, maxDelays);
		this.policies.addChangeListener(() -> sync(registry, tokens, maxDelays));
	}

	/** The gauges of the policies in force, and none for the others. */
	private synchronized void sync(MeterRegistry registry, Map<String, Gauge> tokens, Map<String, Gauge> maxDelays) {
		Set<String> names = new LinkedHashSet<>();
		names.add(BackoffPolicies.DEFAULTS);
		names.addAll(this.policies.getNames());
		Set<String> budgeted = new LinkedHashSet<>(names);
		budgeted.removeIf((name) -> this.policies.getBudget(name) == null);
		for (String name : budgeted) {
			// Read through the policies: a change at run time may put a resized budget in place.
			tokens.computeIfAbsent(name, (policy) -> Gauge
				.builder(TOKENS, this.policies, (policies) -> tokens(policies.getBudget(policy)))
				.tag("policy", policy)
				.description(TOKENS_DESCRIPTION)
				.strongReference(true)
				.register(registry));
		}
		for (String name : names) {
			maxDelays.computeIfAbsent(name, (policy) -> TimeGauge
				.builder(MAX_DELAY, this.policies, TimeUnit.MILLISECONDS, (policies) -> maxDelayMillis(policies, policy))
				.tag("policy", policy)
				.description("The policy's max-delay: the ceiling of its computed waits")
				.strongReference(true)
				.register(registry));
		}
		removeOthers(registry, tokens, budgeted);
		removeOthers(registry, maxDelays, names);
	}

	/** Removes the gauges of the policies no longer {@code kept}, from the registry too. */
	static void removeOthers(MeterRegistry registry, Map<String, Gauge> gauges, Set<String> kept) {
		gauges.entrySet().removeIf((entry) -> {
			if (kept.contains(entry.getKey())) {
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

	private static double maxDelayMillis(BackoffPolicies policies, String name) {
		BackoffPolicy policy = policies.get(name);
		// Only between a policy dropped by a refresh and its gauge's removal.
		return (policy != null) ? policy.getSchedule().getMaxDelay().toNanos() / 1e6 : Double.NaN;
	}

}
