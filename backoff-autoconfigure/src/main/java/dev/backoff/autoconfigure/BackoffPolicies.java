package dev.backoff.autoconfigure;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import dev.backoff.BackoffPolicy;
import dev.backoff.InvalidPolicyException;
import dev.backoff.Jitter;
import dev.backoff.RetryBudget;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * The effective policies of the application, built once at start-up from
 * {@link BackoffProperties}: {@code backoff.defaults} over {@link BackoffPolicy}'s defaults,
 * and each {@code backoff.policies.<name>} over {@code backoff.defaults}. Every policy is
 * validated when this is created, so bad configuration stops start-up. Each policy with a
 * retry budget gets its own {@link RetryBudget}, shared by all of its callers.
 */
public final class BackoffPolicies {

	/** The name under which {@code backoff.defaults} is listed and tagged. */
	public static final String DEFAULTS = "defaults";

	private final BackoffPolicy defaults;

	private final Map<String, BackoffPolicy> policies;

	private BackoffPolicies(BackoffPolicy defaults, Map<String, BackoffPolicy> policies) {
		this.defaults = defaults;
		this.policies = Collections.unmodifiableMap(policies);
	}

	/**
	 * @param properties the bound properties
	 * @param classLoader loads the {@code retry-on} and {@code abort-on} types
	 * @return the validated policies
	 * @throws BackoffConfigurationException naming the first property that breaks a rule
	 */
	public static BackoffPolicies of(BackoffProperties properties, @Nullable ClassLoader classLoader) {
		return of(properties, classLoader, BackoffPolicy.defaults());
	}

	/**
	 * @param properties the bound properties
	 * @param classLoader loads the {@code retry-on} and {@code abort-on} types
	 * @param base what {@code backoff.defaults} starts from: {@link BackoffPolicy#defaults()},
	 * or that with an environment's classification and Retry-After source (HTTP, say)
	 * @return the validated policies
	 * @throws BackoffConfigurationException naming the first property that breaks a rule
	 */
	public static BackoffPolicies of(BackoffProperties properties, @Nullable ClassLoader classLoader,
			BackoffPolicy base) {
		BackoffProperties.Policy defaults = properties.getDefaults();
		BackoffPolicy defaultPolicy = build(base, "backoff.defaults", defaults, null, classLoader);
		Map<String, BackoffPolicy> policies = new LinkedHashMap<>();
		properties.getPolicies().forEach((name, settings) -> {
			if (DEFAULTS.equals(name)) {
				throw new BackoffConfigurationException("backoff.policies." + name, name,
						"the name '" + DEFAULTS + "' is reserved for backoff.defaults",
						"Rename the policy, or move its settings to backoff.defaults.");
			}
			policies.put(name, build(defaultPolicy, "backoff.policies." + name, settings, defaults, classLoader));
		});
		return new BackoffPolicies(defaultPolicy, policies);
	}

	/** @return the policy of {@code backoff.defaults} */
	public BackoffPolicy getDefaults() {
		return this.defaults;
	}

	/**
	 * @param name a policy name, or {@value #DEFAULTS} for {@code backoff.defaults}
	 * @return the policy, or {@code null} if none has that name
	 */
	public @Nullable BackoffPolicy get(String name) {
		return DEFAULTS.equals(name) ? this.defaults : this.policies.get(name);
	}

	/** @return the names under {@code backoff.policies}, in configuration order */
	public Set<String> getNames() {
		return this.policies.keySet();
	}

	/**
	 * Builds one policy over its parent, naming the most specific property that set a broken
	 * value: the policy's own, or the inherited one from {@code backoff.defaults}.
	 */
	private static BackoffPolicy build(BackoffPolicy parent, String prefix, BackoffProperties.Policy settings,
			BackoffProperties.@Nullable Policy inherited, @Nullable ClassLoader classLoader) {
		BackoffPolicy.Builder builder = parent.toBuilder();
		if (settings.getMaxAttempts() != null) {
			builder.maxAttempts(settings.getMaxAttempts());
		}
		if (settings.getBaseDelay() != null) {
			builder.baseDelay(settings.getBaseDelay());
		}
		if (settings.getMaxDelay() != null) {
			builder.maxDelay(settings.getMaxDelay());
		}
		if (settings.getMultiplier() != null) {
			builder.multiplier(settings.getMultiplier());
		}
		if (settings.getJitter() != null) {
			builder.jitter(settings.getJitter());
		}
		if (settings.getMaxElapsed() != null) {
			builder.maxElapsed(settings.getMaxElapsed());
		}
		if (settings.getRetryOn() != null) {
			builder.retryOn(toTypes(prefix + ".retry-on", settings.getRetryOn(), classLoader));
		}
		if (settings.getAbortOn() != null) {
			builder.abortOn(toTypes(prefix + ".abort-on", settings.getAbortOn(), classLoader));
		}
		if (settings.getMaxRetryAfter() != null) {
			builder.maxRetryAfter(settings.getMaxRetryAfter());
		}
		try {
			// A fresh bucket for every policy: the parent's would be shared with backoff.defaults.
			builder.budget(budget(settings.getBudget(), (inherited != null) ? inherited.getBudget() : null));
			return builder.build();
		}
		catch (InvalidPolicyException ex) {
			String rule = rule(ex.getRule());
			if ("maxDelay".equals(ex.getSetting()) && settings.getBaseDelay() != null
					&& settings.getMaxDelay() == null) {
				// max-delay < base-delay, but the base delay is what this policy set: name it.
				String where = prefix + ".base-delay";
				String baseRule = "must be at most max-delay (" + format(ex.getValue()) + ")";
				throw new BackoffConfigurationException(where, format(settings.getBaseDelay()), baseRule,
						"Update " + where + ": it " + baseRule + ", or set " + prefix + ".max-delay.", ex);
			}
			String property = propertyName(ex.getSetting());
			String where = (inherited != null && !isSet(settings, ex.getSetting()) && isSet(inherited, ex.getSetting()))
					? "backoff.defaults." + property : prefix + "." + property;
			throw new BackoffConfigurationException(where, format(ex.getValue()), rule,
					"Update " + where + ": it " + rule + ".", ex);
		}
	}

	/**
	 * The policy's own retry budget, or {@code null} for none: each setting is the policy's, or
	 * else the one inherited from {@code backoff.defaults}.
	 */
	private static @Nullable RetryBudget budget(BackoffProperties.Budget own,
			BackoffProperties.@Nullable Budget inherited) {
		Boolean enabled = inherit(own.getEnabled(), inherited, BackoffProperties.Budget::getEnabled);
		Double maxTokens = inherit(own.getMaxTokens(), inherited, BackoffProperties.Budget::getMaxTokens);
		Double tokenRatio = inherit(own.getTokenRatio(), inherited, BackoffProperties.Budget::getTokenRatio);
		boolean on = (enabled != null) ? enabled : (maxTokens != null || tokenRatio != null);
		if (!on) {
			return null;
		}
		return RetryBudget.of((maxTokens != null) ? maxTokens : RetryBudget.DEFAULT_MAX_TOKENS,
				(tokenRatio != null) ? tokenRatio : RetryBudget.DEFAULT_TOKEN_RATIO);
	}

	private static <T> @Nullable T inherit(@Nullable T own, BackoffProperties.@Nullable Budget inherited,
			Function<BackoffProperties.Budget, @Nullable T> getter) {
		return (own != null || inherited == null) ? own : getter.apply(inherited);
	}

	/**
	 * A core rule in the YAML's words: builder settings as property names, ISO-8601 durations
	 * as the YAML writes them ({@code baseDelay (PT2S)} reads {@code base-delay (2s)}).
	 */
	static String rule(String rule) {
		String translated = rule;
		for (String setting : new String[] { "maxAttempts", "baseDelay", "maxDelay", "maxElapsed", "retryOn",
				"abortOn", "maxRetryAfter", "maxTokens", "tokenRatio" }) {
			translated = translated.replace(setting, propertyName(setting));
		}
		return durations(translated);
	}

	/** Rewrites the ISO-8601 durations of a message the way the YAML writes them. */
	static String durations(String text) {
		java.util.regex.Matcher iso = java.util.regex.Pattern.compile("PT[0-9HMS.]+").matcher(text);
		StringBuilder result = new StringBuilder();
		while (iso.find()) {
			String replacement;
			try {
				replacement = DurationFormat.format(Duration.parse(iso.group()));
			}
			catch (RuntimeException ex) {
				replacement = iso.group();
			}
			iso.appendReplacement(result, java.util.regex.Matcher.quoteReplacement(replacement));
		}
		iso.appendTail(result);
		return result.toString();
	}

	/**
	 * Resolves exception type names, reporting an unknown class or a class that is not a
	 * {@link Throwable} under the property that named it.
	 * @param property the property or attribute that holds the names
	 * @param names fully qualified class names
	 * @param classLoader the class loader to use
	 * @return the types
	 */
	@SuppressWarnings("unchecked")
	static Class<? extends Throwable>[] toTypes(String property, List<String> names, @Nullable ClassLoader classLoader) {
		Class<? extends Throwable>[] types = new Class[names.size()];
		for (int i = 0; i < types.length; i++) {
			String name = names.get(i).trim();
			Class<?> type;
			try {
				type = ClassUtils.forName(name, classLoader);
			}
			catch (ClassNotFoundException | LinkageError ex) {
				throw new BackoffConfigurationException(property, name, "must name a class on the class path",
						"Use the exception type's fully qualified name, such as java.io.IOException.", ex);
			}
			if (!Throwable.class.isAssignableFrom(type)) {
				throw new BackoffConfigurationException(property, name, "must name a Throwable type",
						"Name an exception type, such as java.io.IOException.");
			}
			types[i] = (Class<? extends Throwable>) type;
		}
		return types;
	}

	/** The property name of a builder setting: {@code maxAttempts} → {@code max-attempts}. */
	static String propertyName(String setting) {
		StringBuilder name = new StringBuilder(setting.length() + 4);
		for (char c : setting.toCharArray()) {
			if (Character.isUpperCase(c)) {
				name.append('-').append(Character.toLowerCase(c));
			}
			else {
				name.append(c);
			}
		}
		return name.toString();
	}

	private static boolean isSet(BackoffProperties.Policy settings, String setting) {
		Function<BackoffProperties.Policy, @Nullable Object> getter = switch (setting) {
			case "maxAttempts" -> BackoffProperties.Policy::getMaxAttempts;
			case "baseDelay" -> BackoffProperties.Policy::getBaseDelay;
			case "maxDelay" -> BackoffProperties.Policy::getMaxDelay;
			case "multiplier" -> BackoffProperties.Policy::getMultiplier;
			case "jitter" -> BackoffProperties.Policy::getJitter;
			case "maxElapsed" -> BackoffProperties.Policy::getMaxElapsed;
			case "retryOn" -> BackoffProperties.Policy::getRetryOn;
			case "abortOn" -> BackoffProperties.Policy::getAbortOn;
			case "maxRetryAfter" -> BackoffProperties.Policy::getMaxRetryAfter;
			case "budget.maxTokens" -> (policy) -> policy.getBudget().getMaxTokens();
			case "budget.tokenRatio" -> (policy) -> policy.getBudget().getTokenRatio();
			default -> null;
		};
		return getter != null && getter.apply(settings) != null;
	}

	/** Shows durations the way they are written in YAML. */
	static @Nullable Object format(@Nullable Object value) {
		if (value instanceof Duration duration) {
			return DurationFormat.format(duration);
		}
		if (value instanceof Jitter jitter) {
			return jitter.name().toLowerCase(java.util.Locale.ROOT);
		}
		return value;
	}

}
