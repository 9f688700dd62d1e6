package dev.backoff.spring.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import dev.backoff.BackoffPolicy;
import dev.backoff.HedgeTokens;
import dev.backoff.RetryBudget;
import org.jspecify.annotations.Nullable;

/**
 * A whole set of policies, never modified: the configuration it was made from, the changes
 * made at run time over it (by policy, then by property name under the policy), and each
 * policy. A change makes a new set from it ({@link #withChange}, {@link #withoutChanges},
 * {@link #rebound}), validated as at start-up; {@link BackoffPolicies#apply} puts one in force.
 */
public final class PolicySnapshot {

	private final PolicyFactory factory;

	private final BackoffSettings properties;

	private final Map<String, Map<String, Object>> changes;

	private final Map<String, Entry> entries;

	PolicySnapshot(PolicyFactory factory, BackoffSettings properties, Map<String, Map<String, Object>> changes,
			Map<String, Entry> entries) {
		this.factory = factory;
		this.properties = properties;
		this.changes = changes;
		this.entries = entries;
	}

	/**
	 * @param name a policy name, or {@value BackoffPolicies#DEFAULTS} for {@code backoff.defaults}
	 * @return the policy, or {@code null} if none has that name
	 */
	public @Nullable BackoffPolicy get(String name) {
		Entry entry = this.entries.get(name);
		return (entry != null) ? entry.effective().policy() : null;
	}

	/** @return the retry budget that every caller of the policy shares, or {@code null} for none */
	public @Nullable RetryBudget getBudget(String name) {
		Entry entry = this.entries.get(name);
		return (entry != null) ? entry.effective().budget() : null;
	}

	/** @return what the policy's hedges are paid from, shared by every caller of the policy, or {@code null} for no such policy */
	public @Nullable HedgeTokens getHedgeTokens(String name) {
		Entry entry = this.entries.get(name);
		return (entry != null) ? entry.effective().hedgeTokens() : null;
	}

	/** @return whether HTTP clients of the policy retry POST and PATCH without an Idempotency-Key; false for no such policy */
	public boolean isRetryNonIdempotent(String name) {
		Entry entry = this.entries.get(name);
		return entry != null && entry.effective().retryNonIdempotent();
	}

	/**
	 * @param name a policy name, or {@value BackoffPolicies#DEFAULTS}
	 * @return the policy in force with what the named policy adds beside it, or {@code null} if none has that name
	 */
	public @Nullable EffectivePolicy getEffective(String name) {
		Entry entry = this.entries.get(name);
		return (entry != null) ? entry.effective() : null;
	}

	/** @return the names under {@code backoff.policies}, in configuration order */
	public Set<String> getNames() {
		Set<String> names = new LinkedHashSet<>(this.entries.keySet());
		names.remove(BackoffPolicies.DEFAULTS);
		return Collections.unmodifiableSet(names);
	}

	/**
	 * @return the settings in which the policy differs from its configuration, by Java property
	 * name, as the YAML writes them; empty when it is as configured, or there is no such policy
	 */
	public Map<String, BackoffPolicies.SettingChange> getChanges(String name) {
		Entry entry = this.entries.get(name);
		return (entry != null) ? difference(entry.configured(), entry.settings()) : Map.of();
	}

	/** Whether a method of the named policy must be derived again to run under {@code next}. */
	public boolean differs(String name, PolicySnapshot next) {
		Entry entry = this.entries.get(name);
		Entry other = next.entries.get(name);
		return entry == null || other == null || entry.effective().policy() != other.effective().policy()
				|| entry.effective().budget() != other.effective().budget()
				|| entry.effective().hedgeTokens() != other.effective().hedgeTokens()
				|| entry.effective().controls() != other.effective().controls();
	}

	/**
	 * @param next policies made from these
	 * @return by policy, the settings that have another value in {@code next}; a policy that
	 * only one of them has is listed with every setting
	 */
	public Map<String, Map<String, BackoffPolicies.SettingChange>> differences(PolicySnapshot next) {
		Set<String> names = new LinkedHashSet<>(this.entries.keySet());
		names.addAll(next.entries.keySet());
		Map<String, Map<String, BackoffPolicies.SettingChange>> differences = new LinkedHashMap<>();
		for (String name : names) {
			Map<String, BackoffPolicies.SettingChange> changed = difference(settings(this.entries.get(name)),
					settings(next.entries.get(name)));
			if (!changed.isEmpty()) {
				differences.put(name, changed);
			}
		}
		return Collections.unmodifiableMap(differences);
	}

	/**
	 * @param name a policy of these
	 * @param settings settings to change, by Java property name ({@code maxAttempts},
	 * {@code budget.maxTokens}), valued as the YAML writes them; they add to earlier changes
	 * @return the policies with the change, validated as at start-up
	 * @throws BackoffConfigurationException naming the property, the value and the rule
	 */
	public PolicySnapshot withChange(String name, Map<String, Object> settings) {
		Map<String, Map<String, Object>> changes = new LinkedHashMap<>(this.changes);
		Map<String, Object> merged = new LinkedHashMap<>(changes.getOrDefault(name, Map.of()));
		settings.forEach((setting, value) -> merged.put(PolicyMerge.propertyName(setting), value));
		changes.put(name, Collections.unmodifiableMap(merged));
		return this.factory.snapshot(this.properties, changes, this);
	}

	/** @return the policies with the named one as configured again */
	public PolicySnapshot withoutChanges(String name) {
		Map<String, Map<String, Object>> changes = new LinkedHashMap<>(this.changes);
		changes.remove(name);
		return this.factory.snapshot(this.properties, changes, this);
	}

	/**
	 * @param properties the configuration bound anew
	 * @return its policies, the changes made at run time still over the policies that remain
	 * @throws BackoffConfigurationException naming the first property that breaks a rule
	 */
	public PolicySnapshot rebound(BackoffSettings properties) {
		return this.factory.snapshot(properties, this.changes, this);
	}

	/**
	 * The named policy with an annotation's settings over it, merged in the same one pass as
	 * the YAML, so that an error names the attribute or property that gave the value.
	 * @param name the policy's name, or {@value BackoffPolicies#DEFAULTS}; one of these
	 * @param annotated the annotation's settings; {@code null} ones keep the policy's
	 * @param where where the annotation is, such as {@code  on QuoteClient.fetch}
	 * @throws BackoffConfigurationException naming the attribute or property at fault
	 */
	public BackoffPolicy derive(String name, PolicySettings annotated, String where) {
		return this.factory.derive(name, this.entries.get(name).levels(), annotated, where);
	}

	/**
	 * Where a policy's attempt timeout is set on the policy itself rather than inherited from
	 * {@code backoff.defaults}: a blocking method may not have one of its own, while the
	 * defaults' timeout is meant for the non-blocking methods only.
	 * @return the property that sets it last (a change made at run time is named as the YAML
	 * it overrides); {@code null} when the policy has none of its own, and always for
	 * {@value BackoffPolicies#DEFAULTS}
	 */
	public @Nullable String getOwnAttemptTimeoutProperty(String name) {
		return ownProperty(name, PolicySettings.ATTEMPT_TIMEOUT);
	}

	/** @return the property that sets the policy's own max-hedges last; {@code null} when it inherits it */
	public @Nullable String getOwnMaxHedgesProperty(String name) {
		return ownProperty(name, PolicySettings.MAX_HEDGES);
	}

	/** @return the property that sets the policy's own hedge-percentile last; {@code null} when it inherits it */
	public @Nullable String getOwnHedgePercentileProperty(String name) {
		return ownProperty(name, PolicySettings.HEDGE_PERCENTILE);
	}

	/** @return the property that sets the policy's own max-elapsed last; {@code null} when it inherits it */
	public @Nullable String getOwnMaxElapsedProperty(String name) {
		return ownProperty(name, PolicySettings.MAX_ELAPSED);
	}

	private @Nullable String ownProperty(String name, PolicySetting<?> setting) {
		Entry entry = this.entries.get(name);
		return (entry != null) ? PolicyMerge.ownProperty(entry.levels(), setting) : null;
	}

	@Nullable Entry entry(String name) {
		return this.entries.get(name);
	}

	private static Map<String, @Nullable Object> settings(@Nullable Entry entry) {
		return (entry != null) ? entry.settings() : Map.of();
	}

	private static Map<String, BackoffPolicies.SettingChange> difference(Map<String, @Nullable Object> before,
			Map<String, @Nullable Object> after) {
		Set<String> keys = new LinkedHashSet<>(before.keySet());
		keys.addAll(after.keySet());
		Map<String, BackoffPolicies.SettingChange> changed = new LinkedHashMap<>();
		for (String key : keys) {
			if (!Objects.equals(before.get(key), after.get(key))) {
				changed.put(key, new BackoffPolicies.SettingChange(before.get(key), after.get(key)));
			}
		}
		return Collections.unmodifiableMap(changed);
	}

	/**
	 * One policy.
	 * @param effective the policy in force, its budget and HTTP setting
	 * @param levels the settings it was merged from, the changes made at run time included
	 * @param settings its settings, as {@link PolicySetting#values} lists them
	 * @param configured the settings its configuration alone gives
	 */
	record Entry(EffectivePolicy effective, List<PolicyMerge.Level> levels, Map<String, @Nullable Object> settings,
			Map<String, @Nullable Object> configured) {
	}

}
