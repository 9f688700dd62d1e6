package dev.backoff.autoconfigure.actuate;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.backoff.BackoffPolicy;
import dev.backoff.OverloadControls;
import dev.backoff.RetryBudget;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.EffectivePolicy;
import dev.backoff.spring.config.PolicySetting;

/**
 * A policy's settings in force as the endpoint lists them: every row of the settings table that
 * has a value, with the named policy's budget (its tokens left) and overload controls beside
 * them. Kept apart from {@link BackoffEndpoint}, which lists policies, methods and previews with it.
 */
final class SettingsListing {

	private SettingsListing() {
	}

	/**
	 * @param policies the named policies
	 * @param name the policy's name
	 * @param policy the policy in force (a method's own, where its annotation overrides the named one)
	 * @return the settings by key, unmodifiable
	 */
	static Map<String, Object> of(BackoffPolicies policies, String name, BackoffPolicy policy) {
		RetryBudget budget = policies.getBudget(name);
		Map<String, Object> settings = new LinkedHashMap<>();
		EffectivePolicy effective = policies.getEffective(name);
		OverloadControls controls = (effective != null) ? effective.controls() : null;
		PolicySetting.values(new EffectivePolicy(policy, budget, policies.isRetryNonIdempotent(name),
				(effective != null) ? effective.retryOnDataAccess() : null,
				(effective != null) ? effective.hedgeTokens() : null, controls))
			.forEach((setting, value) -> {
				// The budget's settings are listed under "budget", with its tokens left.
				if (value != null && !setting.contains(".")) {
					settings.put(setting, value);
				}
			});
		settings.put("retryIf", policy.getRules().getRetryIfResult() != null);
		if (budget != null) {
			settings.put("budget", BackoffEndpoint.BudgetDescriptor.of(budget));
		}
		settings.putAll(OverloadDescriptors.of(controls));
		return Collections.unmodifiableMap(settings);
	}

}
