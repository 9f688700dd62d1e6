package dev.backoff.spring.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.backoff.BackoffPolicy;
import dev.backoff.HedgeTokens;
import dev.backoff.NanoClock;
import dev.backoff.OverloadControls;
import dev.backoff.RandomSource;
import dev.backoff.RetryBudget;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;

/**
 * The application's named policies in force: {@code backoff.defaults} over a base policy, and
 * each {@code backoff.policies.<name>} over {@code backoff.defaults}, every one validated at
 * start-up so that bad configuration stops it. Beside each policy, its {@link RetryBudget},
 * if it has one, and its {@link HedgeTokens}: runtime state shared by every caller of the
 * policy, annotation overrides included, and kept here rather than in the policy value.
 *
 * <p>A registry only: the policies are one {@link PolicySnapshot}, replaced whole by
 * {@link #apply} with one write, so that a reader sees the old set or the new one, never part
 * of each. Changes at run time are made by {@code BackoffOperationSource}, which re-derives
 * the methods of a changed policy in the same step.
 */
public final class BackoffPolicies {

	/** The name under which {@code backoff.defaults} is listed and tagged. */
	public static final String DEFAULTS = "defaults";

	static final String DEFAULTS_PREFIX = "backoff.defaults";

	private final PolicyFactory factory;

	/** Told of every snapshot put in force. */
	private final List<Runnable> changeListeners = new CopyOnWriteArrayList<>();

	private volatile PolicySnapshot current;

	private BackoffPolicies(PolicyFactory factory, BackoffSettings properties) {
		this.factory = factory;
		this.current = factory.snapshot(properties, Map.of(), null);
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
		return of(properties, classLoader, base, beanFactory, List.of());
	}

	/**
	 * @param customizers tune the policies in code, in order
	 * @see #of(BackoffSettings, ClassLoader, BackoffPolicy, BeanFactory)
	 */
	public static BackoffPolicies of(BackoffSettings properties, @Nullable ClassLoader classLoader,
			BackoffPolicy base, @Nullable BeanFactory beanFactory, List<BackoffPolicyCustomizer> customizers) {
		return of(properties, classLoader, base, beanFactory, customizers, NanoClock.SYSTEM, RandomSource.THREAD_LOCAL);
	}

	/**
	 * @param clock the time that the policies' admission and pacing count in: the executor's, so
	 * that a pace's wait and a call's {@code max-elapsed} are read on the same clock
	 * @param randomSource what admission's decisions draw from: the executor's
	 * @see #of(BackoffSettings, ClassLoader, BackoffPolicy, BeanFactory, List)
	 */
	public static BackoffPolicies of(BackoffSettings properties, @Nullable ClassLoader classLoader,
			BackoffPolicy base, @Nullable BeanFactory beanFactory, List<BackoffPolicyCustomizer> customizers,
			NanoClock clock, RandomSource randomSource) {
		return new BackoffPolicies(new PolicyFactory(base, classLoader,
				new BackoffExpressions(beanFactory, classLoader), customizers, clock, randomSource), properties);
	}

	/** @return the policies in force now */
	public PolicySnapshot snapshot() {
		return this.current;
	}

	/** Puts policies made from {@link #snapshot()} in force, then tells the change listeners. */
	public void apply(PolicySnapshot next) {
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

	/** @return the SpEL of the policies and annotations, parsed with the same class loader and beans */
	public BackoffExpressions expressions() {
		return this.factory.expressions();
	}

	/** @return the policy of {@code backoff.defaults} */
	public BackoffPolicy getDefaults() {
		return this.current.get(DEFAULTS);
	}

	/** @see PolicySnapshot#get */
	public @Nullable BackoffPolicy get(String name) {
		return this.current.get(name);
	}

	/** @see PolicySnapshot#getBudget */
	public @Nullable RetryBudget getBudget(String name) {
		return this.current.getBudget(name);
	}

	/** @see PolicySnapshot#getHedgeTokens */
	public @Nullable HedgeTokens getHedgeTokens(String name) {
		return this.current.getHedgeTokens(name);
	}

	/** @see PolicySnapshot#isRetryNonIdempotent */
	public boolean isRetryNonIdempotent(String name) {
		return this.current.isRetryNonIdempotent(name);
	}

	/** @see PolicySnapshot#getEffective */
	public @Nullable EffectivePolicy getEffective(String name) {
		return this.current.getEffective(name);
	}

	/** @see PolicySnapshot#getNames */
	public Set<String> getNames() {
		return this.current.getNames();
	}

	/** @see PolicySnapshot#getChanges */
	public Map<String, SettingChange> getChanges(String name) {
		return this.current.getChanges(name);
	}

	/**
	 * Fills every policy's retry budget and hedge bucket up, as at start-up ({@code @InstantBackoff}
	 * does before each test).
	 */
	public void refillBudgets() {
		PolicySnapshot policies = this.current;
		for (String name : withDefaults(policies)) {
			RetryBudget budget = policies.getBudget(name);
			if (budget != null) {
				budget.refill();
			}
			HedgeTokens hedgeTokens = policies.getHedgeTokens(name);
			if (hedgeTokens != null) {
				hedgeTokens.refill();
			}
		}
	}

	/**
	 * Puts every policy's admission and pacing back as at start-up: admission with nothing
	 * counted, pacing asleep until the next throttling failure ({@code @InstantBackoff} does this
	 * before each test, so that a test's outage or 429s do not reject or pace the next test's calls).
	 */
	public void resetOverloadControls() {
		PolicySnapshot policies = this.current;
		for (String name : withDefaults(policies)) {
			EffectivePolicy effective = policies.getEffective(name);
			OverloadControls controls = (effective != null) ? effective.controls() : null;
			if (controls != null) {
				if (controls.getAdmission() != null) {
					controls.getAdmission().reset();
				}
				if (controls.getPacing() != null) {
					controls.getPacing().reset();
				}
			}
		}
	}

	private static List<String> withDefaults(PolicySnapshot policies) {
		List<String> names = new ArrayList<>(policies.getNames());
		names.add(DEFAULTS);
		return names;
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

}
