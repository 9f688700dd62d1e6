package dev.backoff.spring.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import dev.backoff.BackoffPolicy;
import dev.backoff.HedgeTokens;
import dev.backoff.InvalidPolicyException;
import dev.backoff.NanoClock;
import dev.backoff.OverloadControls;
import dev.backoff.RandomSource;
import dev.backoff.RetryBudget;
import dev.backoff.spring.data.DataAccessFailures;
import dev.backoff.spring.data.DataAccessRetry;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * The one merge of settings onto a policy: levels of {@link PolicySettings} ({@code backoff.defaults},
 * then {@code backoff.policies.<name>}, then the changes made at run time or a {@code @Backoff}'s
 * attributes), the most specific value of each row of the table winning. It remembers which
 * level gave each value, so that a value the core rejects is reported under the property (or
 * attribute) that gave it, with the core's rule in that level's words.
 */
final class PolicyMerge {

	private final List<Level> levels;

	private final PolicySettings merged = new PolicySettings();

	/** The level that gave each setting, by its name. */
	private final Map<String, Integer> origins = new HashMap<>();

	private PolicyMerge(List<Level> levels) {
		this.levels = levels;
		for (int i = 0; i < levels.size(); i++) {
			for (PolicySetting<?> setting : PolicySetting.all()) {
				Object value = setting.get(levels.get(i).settings());
				if (value != null) {
					setting.set(this.merged, value);
					this.origins.put(setting.name(), i);
				}
			}
		}
	}

	/** @param levels the settings, least specific first */
	static PolicyMerge of(List<Level> levels) {
		return new PolicyMerge(levels);
	}

	/**
	 * @param base the policy the levels start from
	 * @param context loads classes, parses SpEL and customizes, for the named policy
	 * @return the merged policy: the configured values, then the customizers' changes, then the
	 * values of the changes made at run time and of an annotation
	 * @throws BackoffConfigurationException naming the setting at fault where it was given
	 */
	BackoffPolicy policy(BackoffPolicy base, Context context) {
		checkDataAccessClassified();
		BackoffPolicy.Builder builder = base.toBuilder();
		apply(builder, context, false);
		for (BackoffPolicyCustomizer customizer : context.customizers()) {
			customizer.customize(context.name(), builder);
		}
		apply(builder, context, true);
		if (defaultAttemptTimeoutOutlastsMaxElapsed()) {
			// backoff.defaults' attempt timeout is for non-blocking methods only: the policy stays valid for
			// blocking ones, and the operation source refuses it for the others.
			builder.attemptTimeout(null);
		}
		try {
			return builder.build();
		}
		catch (InvalidPolicyException ex) {
			if (!context.customizers().isEmpty()) {
				try {
					policy(base, context.withoutCustomizers());
				}
				catch (BackoffConfigurationException configured) {
					throw configured;
				}
				throw BackoffConfigurationException.customized(context.name(), ex);
			}
			throw rejected(ex);
		}
	}

	private void apply(BackoffPolicy.Builder builder, Context context, boolean overCustomizers) {
		for (PolicySetting<?> setting : PolicySetting.all()) {
			Object value = setting.get(this.merged);
			if (value != null && setting.isPolicy()
					&& this.levels.get(this.origins.get(setting.name())).overCustomizers() == overCustomizers) {
				setting.apply(builder, value, new At(where(setting), context));
			}
		}
	}

	/**
	 * Refuses {@code retry-on-data-access: transient} where a {@code retry-on} or
	 * {@code retry-on-exception} given at the same level or a less specific one replaces the
	 * default classification it is part of: it would never apply. A more specific level's
	 * {@code retry-on} over an inherited {@code retry-on-data-access} is the policy's own choice.
	 */
	private void checkDataAccessClassified() {
		String dataAccess = PolicySettings.RETRY_ON_DATA_ACCESS.name();
		int given = origin(dataAccess);
		if (given < 0 || this.merged.getRetryOnDataAccess() != DataAccessRetry.TRANSIENT) {
			return;
		}
		for (PolicySetting<?> replacing : List.of(PolicySettings.RETRY_ON, PolicySettings.RETRY_ON_EXCEPTION)) {
			int origin = origin(replacing.name());
			Object value = replacing.get(this.merged);
			if (origin >= 0 && origin <= given && !(value instanceof List<?> list && list.isEmpty())) {
				Level level = this.levels.get(given);
				String other = this.levels.get(origin).where(replacing.name());
				throw new BackoffConfigurationException(level.where(dataAccess), "transient",
						"must not be set where " + other + " is: it replaces the default classification that "
								+ level.name(dataAccess) + " is part of, so it would never apply",
						"Remove " + other + ": retry-on-data-access: transient retries Spring's transient "
								+ "data-access failures, and those they miss such as a pool time-out. Or remove "
								+ level.where(dataAccess) + ".");
			}
		}
	}

	/** Whether only {@code backoff.defaults} sets the attempt timeout, and a more specific level a shorter max-elapsed. */
	private boolean defaultAttemptTimeoutOutlastsMaxElapsed() {
		int timeout = origin(PolicySettings.ATTEMPT_TIMEOUT.name());
		int maxElapsed = origin(PolicySettings.MAX_ELAPSED.name());
		return timeout >= 0 && maxElapsed > timeout
				&& BackoffPolicies.DEFAULTS_PREFIX.equals(this.levels.get(timeout).prefix())
				&& this.merged.getAttemptTimeout().compareTo(this.merged.getMaxElapsed()) > 0;
	}

	/**
	 * @return a new retry budget, or {@code null} when the levels leave it off: on when
	 * {@code enabled} is true, or when {@code max-tokens}, {@code token-ratio} or {@code throttle-cost} is set and
	 * {@code enabled} is not false
	 * @throws BackoffConfigurationException naming the setting at fault where it was given
	 */
	@Nullable RetryBudget budget() {
		PolicySettings.Budget budget = this.merged.getBudget();
		Boolean enabled = budget.getEnabled();
		Double maxTokens = budget.getMaxTokens();
		Double tokenRatio = budget.getTokenRatio();
		Double throttleCost = budget.getThrottleCost();
		if ((enabled != null) ? !enabled : (maxTokens == null && tokenRatio == null && throttleCost == null)) {
			return null;
		}
		try {
			return RetryBudget.of((maxTokens != null) ? maxTokens : RetryBudget.DEFAULT_MAX_TOKENS,
					(tokenRatio != null) ? tokenRatio : RetryBudget.DEFAULT_TOKEN_RATIO,
					(throttleCost != null) ? throttleCost : RetryBudget.DEFAULT_THROTTLE_COST);
		}
		catch (InvalidPolicyException ex) {
			throw rejected(ex);
		}
	}

	/**
	 * @return a new, full hedge bucket with the levels' {@code hedge-max-extra-load}, or its default: one
	 * for every policy, since an annotation may make a method of any policy hedge
	 * @throws BackoffConfigurationException naming the setting at fault where it was given
	 */
	HedgeTokens hedgeTokens() {
		Double maxExtraLoad = this.merged.getHedgeMaxExtraLoad();
		try {
			return new HedgeTokens((maxExtraLoad != null) ? maxExtraLoad : HedgeTokens.DEFAULT_MAX_EXTRA_LOAD);
		}
		catch (InvalidPolicyException ex) {
			throw rejected(ex);
		}
	}

	/**
	 * @param clock the time admission and pacing count in
	 * @param randomSource what admission's decisions draw from
	 * @return new overload controls, or {@code null} when the levels leave admission and pacing
	 * off: each is on only when its {@code enabled} is true
	 * @throws BackoffConfigurationException naming the setting at fault where it was given
	 */
	@Nullable OverloadControls controls(NanoClock clock, RandomSource randomSource) {
		try {
			return OverloadControlsFactory.create(this.merged, clock, randomSource);
		}
		catch (InvalidPolicyException ex) {
			throw rejected(ex);
		}
	}

	/** @return whether HTTP clients retry POST and PATCH requests without an Idempotency-Key; false when no level says */
	boolean retryNonIdempotent() {
		return Boolean.TRUE.equals(this.merged.getRetryNonIdempotent());
	}

	/** @return the most specific level's {@code retry-on-data-access}, or {@code null} when no level says */
	@Nullable DataAccessRetry retryOnDataAccess() {
		return this.merged.getRetryOnDataAccess();
	}

	/**
	 * @param levels the settings, least specific first
	 * @param setting a setting
	 * @return where the most specific level other than {@code backoff.defaults} sets it, or {@code null}
	 */
	static @Nullable String ownProperty(List<Level> levels, PolicySetting<?> setting) {
		String property = null;
		for (Level level : levels) {
			if (!BackoffPolicies.DEFAULTS_PREFIX.equals(level.prefix()) && setting.get(level.settings()) != null) {
				property = level.where(setting.name());
			}
		}
		return property;
	}

	/** Reports a rejected value under the most specific level that set it. */
	private BackoffConfigurationException rejected(InvalidPolicyException ex) {
		String setting = ex.getSetting();
		Object value = ex.getValue();
		String related = ex.getRelatedSetting();
		String baseDelay = PolicySettings.BASE_DELAY.name();
		String maxDelay = PolicySettings.MAX_DELAY.name();
		if (maxDelay.equals(setting) && origin(baseDelay) > origin(maxDelay)) {
			// max-delay < base-delay, but the base delay is what the more specific level set: name it.
			Level level = this.levels.get(origin(baseDelay));
			String rule = "must be at most " + level.name(maxDelay) + " (" + format(value) + ")";
			return new BackoffConfigurationException(level.where(baseDelay),
					format(this.merged.getBaseDelay()), rule,
					level.action(baseDelay, rule) + " Or set " + level.where(maxDelay) + " too.", ex);
		}
		Level level = this.levels.get(Math.max(0, (origin(setting) >= 0) ? origin(setting)
				: (related != null) ? origin(related) : this.levels.size() - 1));
		String rule = ex.getRule(level::name, PolicyMerge::format);
		return new BackoffConfigurationException(level.where(setting), format(value), rule,
				level.action(setting, rule), ex);
	}

	private String where(PolicySetting<?> setting) {
		return this.levels.get(this.origins.get(setting.name())).where(setting.name());
	}

	/** The index of the last level that set the setting, or -1 for none. */
	private int origin(String setting) {
		Integer origin = this.origins.get(setting);
		return (origin != null) ? origin : -1;
	}

	/**
	 * @param setting a setting as the builder and the annotation spell it, such as {@code budget.maxTokens}
	 * @return it as a property name spells it, such as {@code budget.max-tokens}
	 */
	static String propertyName(String setting) {
		StringBuilder name = new StringBuilder(setting.length() + 4);
		for (char c : setting.toCharArray()) {
			name.append(Character.isUpperCase(c) ? "-" + Character.toLowerCase(c) : String.valueOf(c));
		}
		return name.toString();
	}

	/** Shows a value the way YAML writes it. */
	static String format(@Nullable Object value) {
		return String.valueOf(PolicySetting.yaml(value));
	}

	/**
	 * What a policy's merge needs beyond its settings.
	 * @param name the policy's name, for the customizers and the log of a failing expression
	 * @param classLoader loads the exception types the settings name
	 * @param expressions parses {@code retry-on-exception}
	 * @param customizers tune the policy in code, in order
	 * @param base the policy the levels start from, whose default classification others extend
	 */
	record Context(String name, @Nullable ClassLoader classLoader, BackoffExpressions expressions,
			List<BackoffPolicyCustomizer> customizers, BackoffPolicy base) {

		Context withoutCustomizers() {
			return new Context(this.name, this.classLoader, this.expressions, List.of(), this.base);
		}

	}

	/**
	 * Where one setting's value was given, for a row that resolves classes or SpEL.
	 * @param where its property, or the annotation attribute
	 * @param context the merge's context
	 */
	record At(String where, Context context) {

		/**
		 * Resolves exception type names, reporting an unknown class or a class that is not a
		 * {@link Throwable} under the property that named it.
		 */
		@SuppressWarnings("unchecked")
		Class<? extends Throwable>[] types(List<String> names) {
			List<Class<? extends Throwable>> types = new ArrayList<>(names.size());
			for (String name : names) {
				Class<?> type;
				try {
					type = ClassUtils.forName(name.trim(), this.context.classLoader());
				}
				catch (ClassNotFoundException | LinkageError ex) {
					throw new BackoffConfigurationException(this.where, name.trim(), "must name a class on the class path",
							"Use the exception type's fully qualified name, such as java.io.IOException.", ex);
				}
				if (!Throwable.class.isAssignableFrom(type)) {
					throw new BackoffConfigurationException(this.where, name.trim(), "must name a Throwable type",
							"Name an exception type, such as java.io.IOException.");
				}
				types.add((Class<? extends Throwable>) type);
			}
			return types.toArray(new Class[0]);
		}

		Predicate<Throwable> predicate(String text) {
			return this.context.expressions().retryOnException(text, this.where, this.context.name());
		}

		/**
		 * Puts {@code retry-on-data-access} on the builder: {@code transient} classifies
		 * data-access failures before the base policy's default classification decides the rest.
		 */
		static void classifyDataAccess(BackoffPolicy.Builder builder, DataAccessRetry value, At at) {
			if (value == DataAccessRetry.TRANSIENT) {
				// The base has no retry-on, abort-on or retry-on-exception: its rules are its default classification.
				builder.retryableByDefault(DataAccessFailures.retryable(at.context().base().getRules()::isRetryable));
			}
		}

	}

	/**
	 * One level of settings and how its errors name a setting.
	 * @param settings the settings this level gives; {@code null} ones are inherited
	 * @param prefix the YAML prefix, such as {@code backoff.policies.quotes}; {@code null} for
	 * an annotation
	 * @param annotated for an annotation, where it is, such as {@code  on QuoteClient.fetch}
	 * @param overridden for an annotation, the policy it overrides, such as {@code backoff.policies.quotes}
	 * @param overCustomizers whether its values win over the customizers': a change made at run
	 * time and an annotation do, the configuration does not
	 */
	record Level(PolicySettings settings, @Nullable String prefix, String annotated, String overridden,
			boolean overCustomizers) {

		static Level yaml(String prefix, PolicySettings settings) {
			return new Level(settings, prefix, "", prefix, false);
		}

		/** Changes made at run time, named as the YAML they override. */
		static Level live(String prefix, PolicySettings settings) {
			return new Level(settings, prefix, "", prefix, true);
		}

		static Level annotation(String annotated, String overridden, PolicySettings settings) {
			return new Level(settings, null, annotated, overridden, true);
		}

		/** The setting in this level's words: a property name, or the attribute's. */
		String name(String setting) {
			return (this.prefix != null) ? propertyName(setting) : setting;
		}

		/** Where the setting was given: its property, or the annotation attribute. */
		String where(String setting) {
			return (this.prefix != null) ? this.prefix + "." + name(setting)
					: "@Backoff(" + setting + ")" + this.annotated;
		}

		String action(String setting, String rule) {
			return (this.prefix != null) ? "Update " + where(setting) + ": it " + rule + "."
					: "Update " + setting + " on the annotation, or in " + this.overridden + ": it " + rule + ".";
		}

	}

}
