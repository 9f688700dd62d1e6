package dev.backoff.spring.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.backoff.BackoffPolicy;
import dev.backoff.BackoffSchedule;
import dev.backoff.RetryBudget;
import dev.backoff.RetryRules;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;

/**
 * The application's named policies at run time, built at start-up from
 * {@link BackoffSettings}: {@code backoff.defaults} over a base policy, and each
 * {@code backoff.policies.<name>} over {@code backoff.defaults}, every one validated so that
 * bad configuration stops start-up. Beside each policy, its {@link RetryBudget}, if it has
 * one: runtime state shared by every caller of the policy, annotation overrides included, and
 * kept here rather than in the policy value.
 *
 * <p>The policies are live: a policy can be changed while the application runs, reset to its
 * configuration, and the configuration itself bound anew, all through
 * {@code BackoffOperationSource}, which re-derives the methods that use them in the same step.
 * Each change builds a whole new set of policies by the same merge and validation as start-up,
 * then puts it in place with one write, so that a reader sees the old set or the new one,
 * never part of each; an invalid change leaves everything as it was.
 */
public final class BackoffPolicies {

	/** The name under which {@code backoff.defaults} is listed and tagged. */
	public static final String DEFAULTS = "defaults";

	static final String DEFAULTS_PREFIX = "backoff.defaults";

	private final BackoffPolicy base;

	private final @Nullable ClassLoader classLoader;

	private final BackoffExpressions expressions;

	/** Told of every snapshot put in force. */
	private final List<Runnable> changeListeners = new CopyOnWriteArrayList<>();

	/** Replaced whole by every change, never modified. */
	private volatile Snapshot current;

	private BackoffPolicies(BackoffPolicy base, @Nullable ClassLoader classLoader, BackoffExpressions expressions,
			BackoffSettings properties) {
		this.base = base;
		this.classLoader = classLoader;
		this.expressions = expressions;
		this.current = snapshot(properties, Map.of(), null);
	}

	/**
	 * @param properties the bound properties
	 * @param classLoader loads the {@code retry-on} and {@code abort-on} types
	 * @param base what {@code backoff.defaults} starts from: {@link BackoffPolicy#defaults()},
	 * or that with an environment's classification and Retry-After source (HTTP, say)
	 * @param beanFactory resolves the bean references of SpEL expressions, or {@code null} for none
	 * @return the validated policies
	 * @throws BackoffConfigurationException naming the first property that breaks a rule
	 */
	public static BackoffPolicies of(BackoffSettings properties, @Nullable ClassLoader classLoader,
			BackoffPolicy base, @Nullable BeanFactory beanFactory) {
		return new BackoffPolicies(base, classLoader, new BackoffExpressions(beanFactory, classLoader), properties);
	}

	/** @return the policy of {@code backoff.defaults} */
	public BackoffPolicy getDefaults() {
		return this.current.entries.get(DEFAULTS).policy();
	}

	/**
	 * @param name a policy name, or {@value #DEFAULTS} for {@code backoff.defaults}
	 * @return the policy, or {@code null} if none has that name
	 */
	public @Nullable BackoffPolicy get(String name) {
		return this.current.get(name);
	}

	/**
	 * @param name a policy name, or {@value #DEFAULTS} for {@code backoff.defaults}
	 * @return the retry budget that every caller of the policy shares, or {@code null} for none
	 */
	public @Nullable RetryBudget getBudget(String name) {
		return this.current.getBudget(name);
	}

	/** Fills every policy's retry budget up, as at start-up ({@code @InstantBackoff} does before each test). */
	public void refillBudgets() {
		RetryBudget defaults = getBudget(DEFAULTS);
		if (defaults != null) {
			defaults.refill();
		}
		for (String name : getNames()) {
			RetryBudget budget = getBudget(name);
			if (budget != null) {
				budget.refill();
			}
		}
	}

	/**
	 * @param name a policy name, or {@value #DEFAULTS}
	 * @return whether HTTP clients of the policy retry POST and PATCH requests without an
	 * {@code Idempotency-Key} header ({@code retry-non-idempotent}); false for no such policy
	 */
	public boolean isRetryNonIdempotent(String name) {
		Entry entry = this.current.entries.get(name);
		return entry != null && entry.retryNonIdempotent();
	}

	/** @return the names under {@code backoff.policies}, in configuration order */
	public Set<String> getNames() {
		return this.current.getNames();
	}

	/**
	 * @param name a policy name, or {@value #DEFAULTS}
	 * @return the settings in which the policy now differs from its configuration, by Java
	 * property name ({@code maxAttempts}, {@code budget.maxTokens}), from the configured value
	 * to the one in force, as the YAML writes them; empty when it is as configured, or there is
	 * no such policy
	 */
	public Map<String, SettingChange> getChanges(String name) {
		Entry entry = this.current.entries.get(name);
		return (entry != null) ? difference(entry.configured(), entry.settings()) : Map.of();
	}

	private static Map<String, SettingChange> difference(Map<String, @Nullable Object> before,
			Map<String, @Nullable Object> after) {
		Set<String> keys = new LinkedHashSet<>(before.keySet());
		keys.addAll(after.keySet());
		Map<String, SettingChange> changed = new LinkedHashMap<>();
		for (String key : keys) {
			if (!Objects.equals(before.get(key), after.get(key))) {
				changed.put(key, new SettingChange(before.get(key), after.get(key)));
			}
		}
		return Collections.unmodifiableMap(changed);
	}

	/**
	 * The named policy with an annotation's settings over it, merged in the same one pass as
	 * the YAML, so that an error names the attribute or property that gave the value.
	 * @param policies the policies, {@link #snapshot()} or a change of them
	 * @param name the policy's name, or {@value #DEFAULTS}
	 * @param settings the annotation's settings; {@code null} ones keep the policy's
	 * @param where where the annotation is, such as {@code  on QuoteClient.fetch}
	 * @return the effective policy
	 * @throws BackoffConfigurationException naming the attribute or property at fault
	 */
	public BackoffPolicy derive(Snapshot policies, String name, BackoffSettings.Policy settings, String where) {
		Entry entry = policies.entries.get(name);
		String prefix = DEFAULTS.equals(name) ? DEFAULTS_PREFIX : "backoff.policies." + name;
		List<PolicyMerge.Level> levels = new ArrayList<>(entry.levels());
		levels.add(PolicyMerge.Level.annotation(where, prefix, settings));
		return PolicyMerge.policy(this.base, levels, this.classLoader, this.expressions, name);
	}

	/**
	 * Where a policy's attempt timeout is set on the policy itself rather than inherited from
	 * {@code backoff.defaults}: a blocking method may not have one of its own, while the
	 * defaults' timeout is meant for the non-blocking methods only.
	 * @param policies the policies, {@link #snapshot()} or a change of them
	 * @param name a policy name, or {@value #DEFAULTS}
	 * @return the property that sets it last, such as {@code backoff.policies.quotes.attempt-timeout}
	 * (a change made at run time is named as the YAML it overrides); {@code null} when the
	 * policy has none of its own, and always for {@value #DEFAULTS}
	 */
	public @Nullable String getOwnAttemptTimeoutProperty(Snapshot policies, String name) {
		return ownProperty(policies, name, "attemptTimeout", BackoffSettings.Policy::getAttemptTimeout);
	}

	/**
	 * @param policies the policies, {@link #snapshot()} or a change of them
	 * @param name a policy name
	 * @return the property that sets the policy's own max-elapsed last; {@code null} when it
	 * inherits it from {@code backoff.defaults}
	 */
	public @Nullable String getOwnMaxElapsedProperty(Snapshot policies, String name) {
		return ownProperty(policies, name, "maxElapsed", BackoffSettings.Policy::getMaxElapsed);
	}

	private static @Nullable String ownProperty(Snapshot policies, String name, String setting,
			Function<BackoffSettings.Policy, @Nullable Object> value) {
		Entry entry = policies.entries.get(name);
		String property = null;
		if (entry != null) {
			for (PolicyMerge.Level level : entry.levels()) {
				if (!DEFAULTS_PREFIX.equals(level.prefix()) && value.apply(level.settings()) != null) {
					property = level.where(setting);
				}
			}
		}
		return property;
	}

	/** @return the SpEL of the policies and annotations, parsed with the same class loader and beans */
	public BackoffExpressions expressions() {
		return this.expressions;
	}

	/** @return the policies in force now */
	public Snapshot snapshot() {
		return this.current;
	}

	/** Puts policies made from {@link #snapshot()} by {@link #change}, {@link #reset} or {@link #rebind} in force. */
	public void apply(Snapshot next) {
		this.current = next;
		for (Runnable listener : this.changeListeners) {
			listener.run();
		}
	}

	/**
	 * @param listener run each time a change, a reset or a refresh has put policies in force,
	 * on the thread that made it: for what follows them, such as a budget's gauge
	 */
	public void addChangeListener(Runnable listener) {
		this.changeListeners.add(listener);
	}

	/**
	 * @param from the policies in force
	 * @param name a policy of them
	 * @param settings settings to change, by Java property name ({@code maxAttempts},
	 * {@code budget.maxTokens}), valued as the YAML writes them; they add to earlier changes
	 * @return the policies with the change, validated as at start-up
	 * @throws BackoffConfigurationException naming the property, the value and the rule
	 */
	public Snapshot change(Snapshot from, String name, Map<String, Object> settings) {
		Map<String, Map<String, Object>> changes = new LinkedHashMap<>(from.changes);
		Map<String, Object> merged = new LinkedHashMap<>(changes.getOrDefault(name, Map.of()));
		settings.forEach((setting, value) -> merged.put(PolicyMerge.propertyName(setting), value));
		changes.put(name, Collections.unmodifiableMap(merged));
		return snapshot(from.properties, changes, from);
	}

	/**
	 * @param from the policies in force
	 * @param name a policy of them
	 * @return the policies with that one as configured again
	 */
	public Snapshot reset(Snapshot from, String name) {
		Map<String, Map<String, Object>> changes = new LinkedHashMap<>(from.changes);
		changes.remove(name);
		return snapshot(from.properties, changes, from);
	}

	/**
	 * @param from the policies in force
	 * @param properties the configuration bound anew
	 * @return the policies of that configuration, with the changes made at run time still over
	 * the policies that remain
	 * @throws BackoffConfigurationException naming the first property that breaks a rule
	 */
	public Snapshot rebind(Snapshot from, BackoffSettings properties) {
		return snapshot(properties, from.changes, from);
	}

	private Snapshot snapshot(BackoffSettings properties, Map<String, Map<String, Object>> changes,
			@Nullable Snapshot previous) {
		Map<String, Entry> entries = new LinkedHashMap<>();
		PolicyMerge.Level defaults = PolicyMerge.Level.yaml(DEFAULTS_PREFIX, properties.getDefaults());
		List<PolicyMerge.Level> liveDefaults = live(List.of(defaults), DEFAULTS_PREFIX, changes.get(DEFAULTS));
		entries.put(DEFAULTS, entry(DEFAULTS, List.of(defaults), liveDefaults, previous));
		properties.getPolicies().forEach((name, settings) -> {
			if (DEFAULTS.equals(name)) {
				throw new BackoffConfigurationException("backoff.policies." + name, name,
						"the name '" + DEFAULTS + "' is reserved for backoff.defaults",
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
		return new Snapshot(properties, Collections.unmodifiableMap(kept), Collections.unmodifiableMap(entries));
	}

	/** The levels with the changes made at run time as one more level, named as the YAML's. */
	private static List<PolicyMerge.Level> live(List<PolicyMerge.Level> levels, String prefix,
			@Nullable Map<String, Object> changes) {
		if (changes == null || changes.isEmpty()) {
			return List.copyOf(levels);
		}
		List<PolicyMerge.Level> live = new ArrayList<>(levels);
		live.add(PolicyMerge.Level.yaml(prefix, SettingsBinder.bindPolicy(prefix, changes)));
		return List.copyOf(live);
	}

	private Entry entry(String name, List<PolicyMerge.Level> configuredLevels, List<PolicyMerge.Level> levels,
			@Nullable Snapshot previous) {
		BackoffPolicy policy = PolicyMerge.policy(this.base, levels, this.classLoader, this.expressions, name);
		// A fresh bucket for every policy, even one whose budget settings all come from backoff.defaults.
		RetryBudget budget = PolicyMerge.budget(levels);
		boolean retryNonIdempotent = PolicyMerge.retryNonIdempotent(levels);
		Map<String, @Nullable Object> settings = settings(policy, budget, retryNonIdempotent);
		Map<String, @Nullable Object> configured = levels.equals(configuredLevels) ? settings
				: settings(PolicyMerge.policy(this.base, configuredLevels, this.classLoader, this.expressions, name),
						PolicyMerge.budget(configuredLevels), PolicyMerge.retryNonIdempotent(configuredLevels));
		Entry old = (previous != null) ? previous.entries.get(name) : null;
		if (old == null) {
			return new Entry(policy, budget, retryNonIdempotent, levels, settings, configured);
		}
		if (old.settings().equals(settings)) {
			// Unchanged: the same objects, so that the methods of the policy keep theirs.
			return new Entry(old.policy(), old.budget(), retryNonIdempotent, levels, settings, configured);
		}
		return new Entry(policy, carry(old.budget(), budget), retryNonIdempotent, levels, settings, configured);
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

	/** A policy's settings by Java property name, valued as the YAML writes them: what a change compares. */
	private static Map<String, @Nullable Object> settings(BackoffPolicy policy, @Nullable RetryBudget budget,
			boolean retryNonIdempotent) {
		BackoffSchedule schedule = policy.getSchedule();
		BackoffSchedule throttling = schedule.getThrottling();
		RetryRules rules = policy.getRules();
		Map<String, @Nullable Object> settings = new LinkedHashMap<>();
		settings.put("maxAttempts", schedule.getMaxAttempts());
		settings.put("baseDelay", PolicyMerge.format(schedule.getBaseDelay()));
		settings.put("maxDelay", PolicyMerge.format(schedule.getMaxDelay()));
		settings.put("multiplier", schedule.getMultiplier());
		settings.put("jitter", PolicyMerge.format(schedule.getJitter()));
		settings.put("maxElapsed", (rules.getMaxElapsed() != null) ? PolicyMerge.format(rules.getMaxElapsed()) : null);
		settings.put("attemptTimeout",
				(rules.getAttemptTimeout() != null) ? PolicyMerge.format(rules.getAttemptTimeout()) : null);
		settings.put("maxRetryAfter", PolicyMerge.format(policy.getMaxRetryAfter()));
		settings.put("retryOn", rules.getRetryOn().stream().map(Class::getName).toList());
		settings.put("abortOn", rules.getAbortOn().stream().map(Class::getName).toList());
		settings.put("retryOnException",
				(rules.getRetryOnException() != null) ? String.valueOf(rules.getRetryOnException()) : null);
		settings.put("throttleBaseDelay", (throttling != null) ? PolicyMerge.format(throttling.getBaseDelay()) : null);
		settings.put("throttleMaxDelay", (throttling != null) ? PolicyMerge.format(throttling.getMaxDelay()) : null);
		settings.put("throttleOn", rules.getThrottleOn().stream().map(Class::getName).toList());
		settings.put("retryNonIdempotent", retryNonIdempotent);
		settings.put("budget.enabled", budget != null);
		if (budget != null) {
			settings.put("budget.maxTokens", budget.getMaxTokens());
			settings.put("budget.tokenRatio", budget.getTokenRatio());
			settings.put("budget.throttleCost", budget.getThrottleCost());
		}
		return Collections.unmodifiableMap(settings);
	}

	/**
	 * One setting that a change gave a new value.
	 * @param from the value before, as the YAML writes it ({@code null}: unset)
	 * @param to the value now
	 */
	public record SettingChange(@Nullable Object from, @Nullable Object to) {

		@Override
		public String toString() {
			return this.from + " -> " + this.to;
		}

	}

	/**
	 * A whole set of policies: the configuration it was made from, the changes made at run
	 * time over it (by policy, then by property name under the policy), and each policy.
	 */
	public static final class Snapshot {

		private final BackoffSettings properties;

		private final Map<String, Map<String, Object>> changes;

		private final Map<String, Entry> entries;

		private Snapshot(BackoffSettings properties, Map<String, Map<String, Object>> changes,
				Map<String, Entry> entries) {
			this.properties = properties;
			this.changes = changes;
			this.entries = entries;
		}

		public @Nullable BackoffPolicy get(String name) {
			Entry entry = this.entries.get(name);
			return (entry != null) ? entry.policy() : null;
		}

		public @Nullable RetryBudget getBudget(String name) {
			Entry entry = this.entries.get(name);
			return (entry != null) ? entry.budget() : null;
		}

		public Set<String> getNames() {
			Set<String> names = new LinkedHashSet<>(this.entries.keySet());
			names.remove(DEFAULTS);
			return Collections.unmodifiableSet(names);
		}

		/** Whether a method of the named policy must be derived again to run under {@code next}. */
		public boolean differs(String name, Snapshot next) {
			Entry entry = this.entries.get(name);
			Entry other = next.entries.get(name);
			return entry == null || other == null || entry.policy() != other.policy()
					|| entry.budget() != other.budget();
		}

		/**
		 * @param next policies made from these
		 * @return by policy, the settings that have another value in {@code next}; a policy
		 * that only one of them has is listed with every setting
		 */
		public Map<String, Map<String, SettingChange>> differences(Snapshot next) {
			Set<String> names = new LinkedHashSet<>(this.entries.keySet());
			names.addAll(next.entries.keySet());
			Map<String, Map<String, SettingChange>> differences = new LinkedHashMap<>();
			for (String name : names) {
				Map<String, SettingChange> changed = difference(settings(this.entries.get(name)),
						settings(next.entries.get(name)));
				if (!changed.isEmpty()) {
					differences.put(name, changed);
				}
			}
			return Collections.unmodifiableMap(differences);
		}

		private static Map<String, @Nullable Object> settings(@Nullable Entry entry) {
			return (entry != null) ? entry.settings() : Map.of();
		}

	}

	/**
	 * One policy.
	 * @param policy the policy in force
	 * @param budget its retry budget, or {@code null} for none
	 * @param levels the settings it was merged from, the changes made at run time included
	 * @param retryNonIdempotent whether its HTTP clients retry POST and PATCH without an Idempotency-Key
	 * @param settings its settings, as {@link #settings(BackoffPolicy, RetryBudget, boolean)} lists them
	 * @param configured the settings its configuration alone gives
	 */
	private record Entry(BackoffPolicy policy, @Nullable RetryBudget budget, boolean retryNonIdempotent,
			List<PolicyMerge.Level> levels,
			Map<String, @Nullable Object> settings, Map<String, @Nullable Object> configured) {
	}

}
