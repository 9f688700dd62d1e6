package dev.backoff.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * Thrown at start-up when a {@code backoff.*} property or a {@code @Backoff} attribute breaks
 * a rule; {@link BackoffFailureAnalyzer} turns it into a report that names the property, the
 * value and the rule, and says what to set.
 */
public class BackoffConfigurationException extends IllegalStateException {

	private final String property;

	private final @Nullable Object value;

	private final String rule;

	private final String action;

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
		super(property + " was '" + value + "', but " + rule + ". " + action, cause);
		this.property = property;
		this.value = value;
		this.rule = rule;
		this.action = action;
	}

	/** @return where the value was given */
	public String getProperty() {
		return this.property;
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
