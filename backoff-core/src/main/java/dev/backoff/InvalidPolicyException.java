package dev.backoff;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a {@link BackoffPolicy} setting, or a combination of settings, breaks a rule.
 * Carries the setting's name (as the builder method spells it), the value given and the
 * rule, so that a configuration layer can point at its own property name.
 */
public class InvalidPolicyException extends IllegalArgumentException {

	private final String setting;

	private final @Nullable Object value;

	private final String rule;

	/**
	 * @param setting the builder setting, e.g. {@code maxAttempts}
	 * @param value the value given
	 * @param rule the rule it breaks, e.g. {@code must be at least 1}
	 */
	public InvalidPolicyException(String setting, @Nullable Object value, String rule) {
		super(setting + " was " + value + ", but " + rule);
		this.setting = setting;
		this.value = value;
		this.rule = rule;
	}

	/** @return the builder setting at fault, e.g. {@code maxAttempts} */
	public String getSetting() {
		return this.setting;
	}

	/** @return the value given */
	public @Nullable Object getValue() {
		return this.value;
	}

	/** @return the rule the value breaks */
	public String getRule() {
		return this.rule;
	}

}
