package dev.backoff;

import java.util.function.Function;
import java.util.function.UnaryOperator;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a {@link BackoffPolicy} setting, or a combination of settings, breaks a rule.
 * Carries the setting's name (as the builder method spells it), the value given and the
 * rule as separate fields, the rule's own references to settings and values included, so
 * that a configuration layer can print them in its own words (property names, its own
 * duration format) without editing the message.
 */
public class InvalidPolicyException extends IllegalArgumentException {

	private final String setting;

	private final @Nullable Object value;

	private final String rule;

	private final @Nullable Object[] arguments;

	/**
	 * @param setting the builder setting, e.g. {@code maxAttempts}
	 * @param value the value given
	 * @param rule the rule it breaks, e.g. {@code must be at least 1}; {@code {0}}, {@code {1}}…
	 * stand for the arguments
	 * @param arguments what the rule refers to: other settings as {@link Setting}, values as
	 * themselves
	 */
	public InvalidPolicyException(String setting, @Nullable Object value, String rule, @Nullable Object... arguments) {
		super(setting + " was " + value + ", but " + format(rule, arguments, UnaryOperator.identity(), String::valueOf));
		this.setting = setting;
		this.value = value;
		this.rule = rule;
		this.arguments = arguments.clone();
	}

	/** @return the builder setting at fault, e.g. {@code maxAttempts} */
	public String getSetting() {
		return this.setting;
	}

	/** @return the value given */
	public @Nullable Object getValue() {
		return this.value;
	}

	/** @return the rule the value breaks, in the builder's words */
	public String getRule() {
		return format(this.rule, this.arguments, UnaryOperator.identity(), String::valueOf);
	}

	/**
	 * @param settings names each setting the rule refers to, e.g. as a property
	 * @param values writes each value the rule refers to
	 * @return the rule the value breaks, in the caller's words
	 */
	public String getRule(UnaryOperator<String> settings, Function<@Nullable Object, String> values) {
		return format(this.rule, this.arguments, settings, values);
	}

	/** @return the other setting this rule relates the value to, e.g. {@code baseDelay}; {@code null} for none */
	public @Nullable String getRelatedSetting() {
		for (Object argument : this.arguments) {
			if (argument instanceof Setting other) {
				return other.name();
			}
		}
		return null;
	}

	private static String format(String rule, @Nullable Object[] arguments, UnaryOperator<String> settings,
			Function<@Nullable Object, String> values) {
		String formatted = rule;
		for (int i = 0; i < arguments.length; i++) {
			Object argument = arguments[i];
			String text = (argument instanceof Setting other) ? settings.apply(other.name()) : values.apply(argument);
			formatted = formatted.replace("{" + i + "}", text);
		}
		return formatted;
	}

	/**
	 * A reference to another setting in a rule.
	 * @param name the setting, as the builder method spells it
	 */
	public record Setting(String name) {
	}

}
