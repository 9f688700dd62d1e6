package dev.backoff.autoconfigure;

import dev.backoff.internal.CauseChain;
import dev.backoff.spring.config.BackoffConfigurationException;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Reports bad Backoff configuration at start-up: the property (or {@code @Backoff} attribute),
 * the value given, the rule it breaks, and what to set. Covers values that bind but break a
 * rule ({@link BackoffConfigurationException}) and values under {@code backoff.*} that do not
 * bind at all, such as an unknown jitter name or a malformed duration; ordered before Spring
 * Boot's generic bind analysis so that those speak Backoff's rules too.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
public class BackoffFailureAnalyzer implements FailureAnalyzer {

	@Override
	public @Nullable FailureAnalysis analyze(Throwable failure) {
		BackoffConfigurationException invalid = findCause(failure, BackoffConfigurationException.class);
		if (invalid != null) {
			return analysis(invalid.isInCode() ? "Where:   " : "Property:", invalid.getProperty(), invalid.getValue(),
					invalid.getRule(), invalid.getAction(), invalid);
		}
		BindException bind = findCause(failure, BindException.class);
		if (bind != null && bind.getProperty() != null && bind.getName().toString().startsWith("backoff.")) {
			BackoffConfigurationException unbound = unbound(bind, bind.getProperty());
			return analysis("Property:", unbound.getProperty(), unbound.getValue(), unbound.getRule(),
					unbound.getAction(), bind);
		}
		return null;
	}

	/**
	 * @param bind Boot's failure to bind a {@code backoff.*} value
	 * @param property the property that failed
	 * @return it in Backoff's words: the rule names the form the value must take
	 */
	static BackoffConfigurationException unbound(BindException bind, ConfigurationProperty property) {
		return BackoffConfigurationException.unbound(property.getName().toString(), property.getValue(),
				bind.getTarget().getType().resolve(Object.class), bind);
	}

	private FailureAnalysis analysis(String label, String property, @Nullable Object value, String rule,
			String action, Throwable cause) {
		// No line break at the end: Boot's reporter adds one, and a second would double the blank
		// line before "Action:".
		String description = String.format("Invalid Backoff configuration:%n%n    %s %s%n    Value:    %s%n"
				+ "    Rule:     %s", label, property, value, rule);
		return new FailureAnalysis(description, action, cause);
	}

	private static <T extends Throwable> @Nullable T findCause(Throwable failure, Class<T> type) {
		return CauseChain.first(failure, (current) -> type.isInstance(current) ? type.cast(current) : null);
	}

}
