package dev.backoff.spring.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.backoff.BackoffPolicy;
import dev.backoff.HedgeTokens;
import dev.backoff.NanoClock;
import dev.backoff.RandomSource;
import dev.backoff.RetryBudget;
import org.jspecify.annotations.Nullable;

/**
 * Builds whole sets of policies from the configuration and the changes made at run time over
 * it, by {@link PolicyMerge}: at start-up, and for every change, reset and refresh. A policy
 * whose settings stay keeps its objects, and its budget its tokens.
 */
final class PolicyFactory {

	private final BackoffPolicy base;

	private final @Nullable ClassLoader classLoader;

	private final BackoffExpressions expressions;

	private final List<BackoffPolicyCustomizer> customizers;

	/** What the overload controls count time in and draw from: the executor's. */
	private final NanoClock clock;

	private final RandomSource randomSource;

	PolicyFactory(BackoffPolicy base, @Nullable ClassLoader classLoader, BackoffExpressions expressions,
			List<BackoffPolicyCustomizer> customizers, NanoClock clock, RandomSource randomSource) {
		this.base = base;
		this.classLoader = classLoader;
		this.expressions = expressions;
		this.customizers = List.copyOf(customizers);
		this.clock = clock;
		this.randomSource = randomSource;
	}

	BackoffExpressions expressions() {
		return this.expressions;
	}

	PolicySnapshot snapshot(BackoffSettings properties, Map<String, Map<String, Object>> changes,
			@Nullable PolicySnapshot previous) {
		Map<String, PolicySnapshot.Entry> entries = new LinkedHashMap<>();
		PolicyMerge.Level defaults = PolicyMerge.Level.yaml(BackoffPolicies.DEFAULTS_PREFIX, properties.getDefaults());
		List<PolicyMerge.Level> liveDefaults = live(List.of(defaults), BackoffPolicies.DEFAULTS_PREFIX,
				changes.get(BackoffPolicies.DEFAULTS));
		entries.put(BackoffPolicies.DEFAULTS, entry(BackoffPolicies.DEFAULTS, List.of(defaults), liveDefaults, previous));
		properties.getPolicies().forEach((name, settings) -> {
			if (BackoffPolicies.DEFAULTS.equals(name)) {
				throw new BackoffConfigurationException("backoff.policies." + name, name,
						"the name '" + BackoffPolicies.DEFAULTS + "' is reserved for backoff.defaults",
						"Rename the policy, or move its settings to backoff.defaults.");
			}
			String prefix = "backoff.policies." + name;
			PolicyMerge.Level own = PolicyMerge.Level.yaml(prefix, settings);
			List<PolicyMerge.Level> live = new ArrayList<>(liveDefaults);
			live.add(own);
			entries.put(name, entry(name, List.of(defaults, own), live(live, prefix, changes.get(name)), previous));
		});
		Map<String, Map<String, Object>> kept = new LinkedHashMap<>(changes);
		// A policy that a new configuration no longer has takes its changes with it.
		kept.keySet().retainAll(entries.keySet());
		return new PolicySnapshot(this, properties, Collections.unmodifiableMap(kept),
				Collections.unmodifiableMap(entries));
	}

	/**
	 * @param levels the named policy's levels, the changes made at run time included
	 * @param annotated an annotation's settings, over them
	 */
	BackoffPolicy derive(String name, List<PolicyMerge.Level> levels, PolicySettings annotated, String where) {
		String prefix = BackoffPolicies.DEFAULTS.equals(name) ? BackoffPolicies.DEFAULTS_PREFIX
				: "backoff.policies." + name;
		List<PolicyMerge.Level> all = new ArrayList<>(levels);
		all.add(PolicyMerge.Level.annotation(where, prefix, annotated));
		return PolicyMerge.of(all).policy(this.base, context(name));
	}

	/** The levels with the changes made at run time as one more level, named as the YAML's. */
	private static List<PolicyMerge.Level> live(List<PolicyMerge.Level> levels, String prefix,
			@Nullable Map<String, Object> changes) {
		if (changes == null || changes.isEmpty()) {
			return List.copyOf(levels);
		}
		List<PolicyMerge.Level> live = new ArrayList<>(levels);
		live.add(PolicyMerge.Level.live(prefix, SettingsBinder.bindPolicy(prefix, changes)));
		return List.copyOf(live);
	}

	private PolicySnapshot.Entry entry(String name, List<PolicyMerge.Level> configuredLevels,
			List<PolicyMerge.Level> levels, @Nullable PolicySnapshot previous) {
		EffectivePolicy policy = effective(name, levels);
		Map<String, @Nullable Object> settings = PolicySetting.values(policy);
		Map<String, @Nullable Object> configured = levels.equals(configuredLevels) ? settings
				: PolicySetting.values(effective(name, configuredLevels));
		PolicySnapshot.Entry old = (previous != null) ? previous.entry(name) : null;
		if (old == null) {
			return new PolicySnapshot.Entry(policy, levels, settings, configured);
		}
		if (old.settings().equals(settings)) {
			// Unchanged: the same objects, so that the methods of the policy keep theirs.
			return new PolicySnapshot.Entry(old.effective(), levels, settings, configured);
		}
		return new PolicySnapshot.Entry(new EffectivePolicy(policy.policy(),
				carry(old.effective().budget(), policy.budget()), policy.retryNonIdempotent(),
				policy.retryOnDataAccess(), carry(old.effective().hedgeTokens(), policy.hedgeTokens()),
				OverloadControlsFactory.carry(old.effective().controls(), policy.controls())), levels, settings,
				configured);
	}

	private EffectivePolicy effective(String name, List<PolicyMerge.Level> levels) {
		PolicyMerge merge = PolicyMerge.of(levels);
		// A fresh bucket for every policy, even one whose budget settings all come from backoff.defaults;
		// and a hedge bucket for every one, whose methods may hedge by their annotation.
		return new EffectivePolicy(merge.policy(this.base, context(name)), merge.budget(), merge.retryNonIdempotent(),
				merge.retryOnDataAccess(), merge.hedgeTokens(), merge.controls(this.clock, this.randomSource));
	}

	private PolicyMerge.Context context(String name) {
		return new PolicyMerge.Context(name, this.classLoader, this.expressions, this.customizers, this.base);
	}

	/**
	 * The budget keeps its tokens when its settings stay; a new size keeps the fraction that is
	 * left ({@link RetryBudget#resize}); a budget turned on starts full.
	 */
	private static @Nullable RetryBudget carry(@Nullable RetryBudget old, @Nullable RetryBudget fresh) {
		if (old == null || fresh == null) {
			return fresh;
		}
		if (old.getMaxTokens() == fresh.getMaxTokens() && old.getTokenRatio() == fresh.getTokenRatio()
				&& old.getThrottleCost() == fresh.getThrottleCost()) {
			return old;
		}
		return old.resize(fresh.getMaxTokens(), fresh.getTokenRatio(), fresh.getThrottleCost());
	}

	/** The hedge bucket keeps its tokens whatever its share becomes ({@link HedgeTokens#resize}). */
	private static @Nullable HedgeTokens carry(@Nullable HedgeTokens old, @Nullable HedgeTokens fresh) {
		if (old == null || fresh == null) {
			return fresh;
		}
		return (old.getMaxExtraLoad() == fresh.getMaxExtraLoad()) ? old : old.resize(fresh.getMaxExtraLoad());
	}

}
