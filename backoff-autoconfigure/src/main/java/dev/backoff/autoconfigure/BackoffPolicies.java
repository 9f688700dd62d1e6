package dev.backoff.autoconfigure;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.backoff.BackoffPolicy;
import dev.backoff.RetryBudget;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;

/**
 * The application's named policies at run time, built once at start-up from
 * {@link BackoffProperties}: {@code backoff.defaults} over a base policy, and each
 * {@code backoff.policies.<name>} over {@code backoff.defaults}, every one validated so that
 * bad configuration stops start-up. Beside each policy, its {@link RetryBudget}, if it has
 * one: runtime state shared by every caller of the policy, annotation overrides included, and
 * kept here rather than in the policy value.
 */
public final class BackoffPolicies {

	/** The name under which {@code backoff.defaults} is listed and tagged. */
	public static final String DEFAULTS = "defaults";

	private static final String DEFAULTS_PREFIX = "backoff.defaults";

	private final BackoffPolicy base;

	private final @Nullable ClassLoader classLoader;

	private final BackoffExpressions expressions;

	private final Map<String, Entry> entries;

	private BackoffPolicies(BackoffPolicy base, @Nullable ClassLoader classLoader, BackoffExpressions expressions,
			Map<String, Entry> entries) {
		this.base = base;
		this.classLoader = classLoader;
		this.expressions = expressions;
		this.entries = entries;
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
	public static BackoffPolicies of(BackoffProperties properties, @Nullable ClassLoader classLoader,
			BackoffPolicy base, @Nullable BeanFactory beanFactory) {
		BackoffExpressions expressions = new BackoffExpressions(beanFactory, classLoader);
		PolicyMerge.Level defaults = PolicyMerge.Level.yaml(DEFAULTS_PREFIX, properties.getDefaults());
		Map<String, Entry> entries = new LinkedHashMap<>();
		entries.put(DEFAULTS, Entry.of(base, List.of(defaults), classLoader, expressions, DEFAULTS));
		properties.getPolicies().forEach((name, settings) -> {
			if (DEFAULTS.equals(name)) {
				throw new BackoffConfigurationException("backoff.policies." + name, name,
						"the name '" + DEFAULTS + "' is reserved for backoff.defaults",
						"Rename the policy, or move its settings to backoff.defaults.");
			}
			List<PolicyMerge.Level> levels = List.of(defaults,
					PolicyMerge.Level.yaml("backoff.policies." + name, settings));
			entries.put(name, Entry.of(base, levels, classLoader, expressions, name));
		});
		return new BackoffPolicies(base, classLoader, expressions, Collections.unmodifiableMap(entries));
	}

	/** @return the policy of {@code backoff.defaults} */
	public BackoffPolicy getDefaults() {
		return this.entries.get(DEFAULTS).policy();
	}

	/**
	 * @param name a policy name, or {@value #DEFAULTS} for {@code backoff.defaults}
	 * @return the policy, or {@code null} if none has that name
	 */
	public @Nullable BackoffPolicy get(String name) {
		Entry entry = this.entries.get(name);
		return (entry != null) ? entry.policy() : null;
	}

	/**
	 * @param name a policy name, or {@value #DEFAULTS} for {@code backoff.defaults}
	 * @return the retry budget that every caller of the policy shares, or {@code null} for none
	 */
	public @Nullable RetryBudget getBudget(String name) {
		Entry entry = this.entries.get(name);
		return (entry != null) ? entry.budget() : null;
	}

	/** @return the names under {@code backoff.policies}, in configuration order */
	public Set<String> getNames() {
		Set<String> names = new java.util.LinkedHashSet<>(this.entries.keySet());
		names.remove(DEFAULTS);
		return Collections.unmodifiableSet(names);
	}

	/**
	 * The named policy with an annotation's settings over it, merged in the same one pass as
	 * the YAML, so that an error names the attribute or property that gave the value.
	 * @param name the policy's name, or {@value #DEFAULTS}
	 * @param settings the annotation's settings; {@code null} ones keep the policy's
	 * @param where where the annotation is, such as {@code  on QuoteClient.fetch}
	 * @return the effective policy
	 * @throws BackoffConfigurationException naming the attribute or property at fault
	 */
	BackoffPolicy derive(String name, BackoffProperties.Policy settings, String where) {
		Entry entry = this.entries.get(name);
		String prefix = DEFAULTS.equals(name) ? DEFAULTS_PREFIX : "backoff.policies." + name;
		List<PolicyMerge.Level> levels = new java.util.ArrayList<>(entry.levels());
		levels.add(PolicyMerge.Level.annotation(where, prefix, settings));
		return PolicyMerge.policy(this.base, levels, this.classLoader, this.expressions, name);
	}

	/** @return the SpEL of the policies and annotations, parsed with the same class loader and beans */
	BackoffExpressions expressions() {
		return this.expressions;
	}

	private record Entry(BackoffPolicy policy, @Nullable RetryBudget budget, List<PolicyMerge.Level> levels) {

		static Entry of(BackoffPolicy base, List<PolicyMerge.Level> levels, @Nullable ClassLoader classLoader,
				BackoffExpressions expressions, String name) {
			// A fresh bucket for every policy, even one whose budget settings all come from backoff.defaults.
			return new Entry(PolicyMerge.policy(base, levels, classLoader, expressions, name),
					PolicyMerge.budget(levels), levels);
		}

	}

}
