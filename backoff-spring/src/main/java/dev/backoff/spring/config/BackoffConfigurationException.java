package dev.backoff.spring.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;


/**
 * Thrown at start-up when a {@code backoff.*} property or a {@code @Backoff} attribute breaks
 * a rule; Spring Boot's failure analyzer (in backoff-spring-boot-autoconfigure) turns it into a report that names the property, the
 * value and the rule, and says what to set.
 */
public class BackoffConfigurationException extends IllegalStateException {

	private final String property;

	private final @Nullable Object value;

	private final String rule;

	private final String action;

	private final boolean inCode;

	/**
	 * @param property where the value was given: a property such as
	 * {@code backoff.policies.quotes.max-attempts}, or an annotation attribute such as
	 * {@code @Backoff(maxAttempts) on QuoteClient.fetch}
	 * @param value the value given
	 * @param rule the rule the value breaks
	 * @param action what to set instead
	 */
	public BackoffConfigurationException(String property, @Nullable Object value, String rule, String action) {
		this(property, value, rule, action, null);
	}

	/**
	 * @param property where the value was given
	 * @param value the value given
	 * @param rule the rule the value breaks
	 * @param action what to set instead
	 * @param cause the underlying failure, if any
	 */
	public BackoffConfigurationException(String property, @Nullable Object value, String rule, String action,
			@Nullable Throwable cause) {
		this(property, value, rule, action, cause, false);
	}

	private BackoffConfigurationException(String property, @Nullable Object value, String rule, String action,
			@Nullable Throwable cause, boolean inCode) {
		super(property + " was '" + value + "', but " + rule + ". " + action, cause);
		this.property = property;
		this.value = value;
		this.rule = rule;
		this.action = action;
		this.inCode = inCode;
	}

	/**
	 * Something the application's code did rather than configured, such as a client built with
	 * an unknown policy: the report says where ("Where:"), not which property.
	 * @param where the code: the call and its caller, or the bean
	 * @param value the value given
	 * @param rule the rule the value breaks
	 * @param action what to do instead
	 * @return the exception
	 */
	public static BackoffConfigurationException inCode(String where, @Nullable Object value, String rule,
			String action) {
		return new BackoffConfigurationException(where, value, rule, action, null, true);
	}

	/**
	 * A {@code backoff.*} value that does not bind at all, such as an unknown jitter name or a
	 * malformed duration, in Backoff's words: the rule names the form the value must take.
	 * @param name the name of the property that failed to bind, as the user gave it
	 * @param value its value
	 * @param target the type the value had to convert to
	 * @param cause the conversion's failure
	 * @return the exception naming the property, the value and the rule
	 */
	public static BackoffConfigurationException unbound(String name, @Nullable Object value, Class<?> target,
			@Nullable Throwable cause) {
		String rule;
		if (target.isEnum()) {
			rule = "must be one of " + Arrays.stream(target.getEnumConstants())
				.map((constant) -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
				.collect(Collectors.joining(", "));
		}
		else if (target == Duration.class) {
			rule = "must be a duration such as 250ms, 2s, 1m or PT0.5S";
		}
		else if (target == Integer.class || target == int.class) {
			rule = "must be a whole number";
		}
		else if (target == Double.class || target == double.class) {
			rule = "must be a number such as 2.0";
		}
		else if (target == Boolean.class || target == boolean.class) {
			rule = "must be true or false";
		}
		else {
			rule = "must be convertible to " + target.getSimpleName();
		}
		return new BackoffConfigurationException(name, value, rule, "Update " + name + ": it " + rule + ".", cause);
	}

	/**
	 * A {@code backoff.*} key that names no setting: a typo must not be silently ignored.
	 * @param name the key as given
	 * @param value its value
	 * @param others how many more unknown keys there are, such as {@code " (and 2 more)"}, or empty
	 * @return the exception naming the key, its value and the rule
	 */
	public static BackoffConfigurationException unknownSetting(String name, @Nullable Object value, String others) {
		return unknownSetting(name, value, others, BackoffSettings.class);
	}

	/**
	 * A {@code backoff.*} key that names no setting, with the nearest key when one is close.
	 * @param name the key as given
	 * @param value its value
	 * @param others how many more unknown keys there are, such as {@code " (and 2 more)"}, or empty
	 * @param settings the class that {@code backoff} binds to, whose settings are the valid keys
	 * @return the exception naming the key, its value and the rule
	 */
	public static BackoffConfigurationException unknownSetting(String name, @Nullable Object value, String others,
			Class<?> settings) {
		String nearest = Suggestions.nearestKey(settings, name).map((key) -> "Did you mean " + key + "? ").orElse("");
		return new BackoffConfigurationException(name, value,
				"is not a Backoff setting" + others
						+ "; docs/configuration.md lists the settings, and the IDE completes them",
				nearest + "Correct the key's spelling, or remove it.");
	}

	/**
	 * A value that a {@link BackoffPolicyCustomizer} set, which the policy's rules refuse.
	 * @param policy the policy's name, or {@value BackoffPolicies#DEFAULTS}
	 * @param cause the core's refusal, naming the setting and the rule
	 * @return the exception naming the customizer, the value and the rule
	 */
	static BackoffConfigurationException customized(String policy, dev.backoff.InvalidPolicyException cause) {
		String where = "a BackoffPolicyCustomizer of policy '" + policy + "' (" + cause.getSetting() + ")";
		return new BackoffConfigurationException(where, cause.getValue(), cause.getRule(),
				"Correct the " + cause.getSetting() + " the customizer sets: it " + cause.getRule() + ".", cause);
	}

	/** @return where the value was given */
	public String getProperty() {
		return this.property;
	}

	/** @return whether {@link #getProperty()} names code ({@link #inCode}) rather than a property or attribute */
	public boolean isInCode() {
		return this.inCode;
	}

	/** @return the value given */
	public @Nullable Object getValue() {
		return this.value;
	}

	/** @return the rule the value breaks */
	public String getRule() {
		return this.rule;
	}

	/** @return what to set instead */
	public String getAction() {
		return this.action;
	}

}
