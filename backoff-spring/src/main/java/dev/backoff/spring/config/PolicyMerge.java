package dev.backoff.spring.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

import dev.backoff.BackoffPolicy;
import dev.backoff.InvalidPolicyException;
import dev.backoff.Jitter;
import dev.backoff.RetryBudget;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * The one merge of settings onto a policy: levels of {@link BackoffSettings.Policy} applied in
 * order over a base policy ({@code backoff.defaults}, then {@code backoff.policies.<name>},
 * then a {@code @Backoff}'s attributes), one line per setting. It remembers which level set
 * each setting, so that a value the core rejects is reported under the property (or attribute)
 * that gave it, with the core's rule in that level's words.
 */
final class PolicyMerge {

	private final List<Level> levels;

	/** The last level that set each setting, and the value it gave, by the core's setting name. */
	private final Map<String, Origin> origins = new HashMap<>();

	private PolicyMerge(List<Level> levels) {
		this.levels = levels;
	}

	/**
	 * @param base the policy the levels start from
	 * @param levels the settings, least specific first
	 * @param classLoader loads the {@code retry-on} and {@code abort-on} types
	 * @param expressions parses {@code retry-on-exception}
	 * @param name the policy's name, for the log of a failing expression
	 * @return the merged policy
	 * @throws BackoffConfigurationException naming the setting at fault where it was given
	 */
	static BackoffPolicy policy(BackoffPolicy base, List<Level> levels, @Nullable ClassLoader classLoader,
			BackoffExpressions expressions, String name) {
		PolicyMerge merge = new PolicyMerge(levels);
		BackoffPolicy.Builder builder = base.toBuilder();
		for (int i = 0; i < levels.size(); i++) {
			Level level = levels.get(i);
			BackoffSettings.Policy settings = level.settings();
			merge.map(i, "maxAttempts", settings.getMaxAttempts(), builder::maxAttempts);
			merge.map(i, "baseDelay", settings.getBaseDelay(), builder::baseDelay);
			merge.map(i, "maxDelay", settings.getMaxDelay(), builder::maxDelay);
			merge.map(i, "multiplier", settings.getMultiplier(), builder::multiplier);
			merge.map(i, "jitter", settings.getJitter(), builder::jitter);
			merge.map(i, "maxElapsed", settings.getMaxElapsed(), builder::maxElapsed);
			merge.map(i, "attemptTimeout", settings.getAttemptTimeout(), builder::attemptTimeout);
			merge.map(i, "maxRetryAfter", settings.getMaxRetryAfter(), builder::maxRetryAfter);
			merge.map(i, "retryOn", settings.getRetryOn(),
					(names) -> builder.retryOn(types(level.where("retryOn"), names, classLoader)));
			merge.map(i, "abortOn", settings.getAbortOn(),
					(names) -> builder.abortOn(types(level.where("abortOn"), names, classLoader)));
			merge.map(i, "throttleBaseDelay", settings.getThrottleBaseDelay(), builder::throttleBaseDelay);
			merge.map(i, "throttleMaxDelay", settings.getThrottleMaxDelay(), builder::throttleMaxDelay);
			merge.map(i, "throttleOn", settings.getThrottleOn(),
					(names) -> builder.throttleOn(types(level.where("throttleOn"), names, classLoader)));
			merge.map(i, "retryOnException", settings.getRetryOnException(), (text) -> builder
				.retryOnException(expressions.retryOnException(text, level.where("retryOnException"), name)));
		}
		if (merge.defaultAttemptTimeoutOutlastsMaxElapsed()) {
			// backoff.defaults' attempt timeout is for non-blocking methods only: the policy stays valid for
			// blocking ones, and the operation source refuses it for the others (BackoffOperationSource#state).
			builder.attemptTimeout(null);
		}
		try {
			return builder.build();
		}
		catch (InvalidPolicyException ex) {
			throw merge.rejected(ex);
		}
	}

	/** Whether only {@code backoff.defaults} sets the attempt timeout, and a more specific level a shorter max-elapsed. */
	private boolean defaultAttemptTimeoutOutlastsMaxElapsed() {
		Origin timeout = this.origins.get("attemptTimeout");
		Origin maxElapsed = this.origins.get("maxElapsed");
		return timeout != null && maxElapsed != null && maxElapsed.level() > timeout.level()
				&& BackoffPolicies.DEFAULTS_PREFIX.equals(this.levels.get(timeout.level()).prefix())
				&& ((Duration) timeout.value()).compareTo((Duration) maxElapsed.value()) > 0;
	}

	/**
	 * @param levels the settings, least specific first; only YAML levels set a budget
	 * @return a new retry budget, or {@code null} when the levels leave it off: on when
	 * {@code enabled} is true, or when {@code max-tokens}, {@code token-ratio} or {@code throttle-cost} is set and
	 * {@code enabled} is not false
	 * @throws BackoffConfigurationException naming the setting at fault where it was given
	 */
	static @Nullable RetryBudget budget(List<Level> levels) {
		PolicyMerge merge = new PolicyMerge(levels);
		BackoffSettings.Budget budget = new BackoffSettings.Budget();
		for (int i = 0; i < levels.size(); i++) {
			BackoffSettings.Budget settings = levels.get(i).settings().getBudget();
			merge.map(i, "budget.enabled", settings.getEnabled(), budget::setEnabled);
			merge.map(i, "budget.maxTokens", settings.getMaxTokens(), budget::setMaxTokens);
			merge.map(i, "budget.tokenRatio", settings.getTokenRatio(), budget::setTokenRatio);
			merge.map(i, "budget.throttleCost", settings.getThrottleCost(), budget::setThrottleCost);
		}
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
			throw merge.rejected(ex);
		}
	}

	/**
	 * @param levels the settings, least specific first
	 * @return whether HTTP clients retry POST and PATCH requests without an Idempotency-Key:
	 * the most specific level's {@code retry-non-idempotent}, false when none sets it
	 */
	static boolean retryNonIdempotent(List<Level> levels) {
		boolean retry = false;
		for (Level level : levels) {
			Boolean value = level.settings().getRetryNonIdempotent();
			retry = (value != null) ? value : retry;
		}
		return retry;
	}

	private <T> void map(int level, String setting, @Nullable T value, Consumer<T> to) {
		if (value != null) {
			to.accept(value);
			this.origins.put(setting, new Origin(level, value));
		}
	}

	/** Reports a rejected value under the most specific level that set it. */
	private BackoffConfigurationException rejected(InvalidPolicyException ex) {
		String setting = ex.getSetting();
		Object value = ex.getValue();
		String related = ex.getRelatedSetting();
		if ("maxDelay".equals(setting) && origin("baseDelay") > origin("maxDelay")) {
			// max-delay < base-delay, but the base delay is what the more specific level set: name it.
			Level level = this.levels.get(origin("baseDelay"));
			String rule = "must be at most " + level.name("maxDelay") + " (" + format(value) + ")";
			return new BackoffConfigurationException(level.where("baseDelay"),
					format(this.origins.get("baseDelay").value()), rule,
					level.action("baseDelay", rule) + " Or set " + level.where("maxDelay") + " too.", ex);
		}
		Level level = this.levels.get(Math.max(0, (origin(setting) >= 0) ? origin(setting)
				: (related != null) ? origin(related) : this.levels.size() - 1));
		String rule = ex.getRule(level::name, PolicyMerge::format);
		return new BackoffConfigurationException(level.where(setting), format(value), rule,
				level.action(setting, rule), ex);
	}

	/** The index of the last level that set the setting, or -1 for none. */
	private int origin(String setting) {
		Origin origin = this.origins.get(setting);
		return (origin != null) ? origin.level() : -1;
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
		if (value instanceof Duration duration) {
			return DurationFormat.format(duration);
		}
		if (value instanceof Jitter jitter) {
			return jitter.name().toLowerCase(Locale.ROOT);
		}
		return String.valueOf(value);
	}

	/**
	 * Resolves exception type names, reporting an unknown class or a class that is not a
	 * {@link Throwable} under the property that named it.
	 */
	@SuppressWarnings("unchecked")
	private static Class<? extends Throwable>[] types(String property, List<String> names,
			@Nullable ClassLoader classLoader) {
		List<Class<? extends Throwable>> types = new ArrayList<>(names.size());
		for (String name : names) {
			Class<?> type;
			try {
				type = ClassUtils.forName(name.trim(), classLoader);
			}
			catch (ClassNotFoundException | LinkageError ex) {
				throw new BackoffConfigurationException(property, name.trim(), "must name a class on the class path",
						"Use the exception type's fully qualified name, such as java.io.IOException.", ex);
			}
			if (!Throwable.class.isAssignableFrom(type)) {
				throw new BackoffConfigurationException(property, name.trim(), "must name a Throwable type",
						"Name an exception type, such as java.io.IOException.");
			}
			types.add((Class<? extends Throwable>) type);
		}
		return types.toArray(new Class[0]);
	}

	private record Origin(int level, Object value) {
	}

	/**
	 * One level of settings and how its errors name a setting.
	 * @param settings the settings this level gives; {@code null} ones are inherited
	 * @param prefix the YAML prefix, such as {@code backoff.policies.quotes}; {@code null} for
	 * an annotation
	 * @param annotated for an annotation, where it is, such as {@code  on QuoteClient.fetch}
	 * @param overridden for an annotation, the policy it overrides, such as {@code backoff.policies.quotes}
	 */
	record Level(BackoffSettings.Policy settings, @Nullable String prefix, String annotated, String overridden) {

		static Level yaml(String prefix, BackoffSettings.Policy settings) {
			return new Level(settings, prefix, "", prefix);
		}

		static Level annotation(String annotated, String overridden, BackoffSettings.Policy settings) {
			return new Level(settings, null, annotated, overridden);
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
