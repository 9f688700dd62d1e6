package dev.backoff.spring.operation;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import dev.backoff.Backoff;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.DurationFormat;
import dev.backoff.spring.config.PolicySetting;
import dev.backoff.spring.config.PolicySettings;
import dev.backoff.spring.config.PolicySnapshot;
import dev.backoff.spring.config.Suggestions;
import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * Reads a {@code @Backoff}: its attributes with {@code ${…}} placeholders and {@code #{…}} bean
 * expressions resolved, as {@code @Value} does, and its settings parsed as the YAML's, one
 * attribute per row of the table of settings that has one. Anything that does not resolve or
 * parse stops start-up, naming the attribute and the method.
 */
final class BackoffAnnotations {

	private final StringValueResolver placeholders;

	BackoffAnnotations(StringValueResolver placeholders) {
		this.placeholders = placeholders;
	}

	/** @return the policy the annotation names, or {@value BackoffPolicies#DEFAULTS} */
	String policyName(Backoff backoff, String where) {
		String value = resolve("value", backoff.value(), where);
		String policy = resolve("policy", backoff.policy(), where);
		if (StringUtils.hasText(value) && StringUtils.hasText(policy) && !value.equals(policy)) {
			throw new BackoffConfigurationException("@Backoff(policy)" + where, policy,
					"must be the same as value ('" + value + "') when both are set",
					"Set only one of value and policy.");
		}
		String name = StringUtils.hasText(value) ? value : policy;
		return StringUtils.hasText(name) ? name.trim() : BackoffPolicies.DEFAULTS;
	}

	/** @return the policy the annotation names, which must exist among the policies */
	String existingPolicy(Backoff backoff, String where, PolicySnapshot policies) {
		String policyName = policyName(backoff, where);
		if (policies.get(policyName) == null) {
			String attribute = StringUtils.hasText(resolve("value", backoff.value(), where)) ? "value" : "policy";
			Set<String> names = policies.getNames();
			throw new BackoffConfigurationException("@Backoff(" + attribute + ")" + where, policyName,
					"must name a policy under backoff.policies ("
							+ (names.isEmpty() ? "none is configured" : "configured: " + String.join(", ", names))
							+ ")",
					Suggestions.didYouMean(policyName, names, BackoffPolicies.DEFAULTS)
							+ "Add backoff.policies." + policyName + " to the configuration"
							+ (names.isEmpty() ? "." : ", or name one of " + String.join(", ", names) + "."));
		}
		return policyName;
	}

	/** @return the annotation's settings, parsed as the YAML's; {@code null} when it sets none */
	@Nullable PolicySettings settings(Backoff backoff, String where) {
		Map<String, Object> attributes = AnnotationUtils.getAnnotationAttributes(backoff);
		PolicySettings settings = new PolicySettings();
		boolean any = false;
		for (PolicySetting<?> setting : PolicySetting.all()) {
			Object attribute = attributes.get(setting.name());
			Object value = (attribute != null) ? value(setting, attribute, where) : null;
			if (value != null) {
				setting.set(settings, value);
				any = true;
			}
		}
		return any ? settings : null;
	}

	private @Nullable Object value(PolicySetting<?> setting, Object attribute, String where) {
		String name = setting.name();
		if (attribute instanceof Class<?>[] types) {
			return (types.length > 0) ? Arrays.stream(types).map(Class::getName).toList() : null;
		}
		if (attribute instanceof Object[] values) {
			if (values.length > 1) {
				throw new BackoffConfigurationException("@Backoff(" + name + ")" + where, Arrays.toString(values),
						"must hold at most one value", "Keep one " + name + ".");
			}
			return (values.length == 1) ? values[0] : null;
		}
		Class<?> type = setting.type();
		if (type == Integer.class) {
			return parse(name, (String) attribute, where, "a whole number such as " + setting.example(), Integer::valueOf);
		}
		if (type == Duration.class) {
			return parse(name, (String) attribute, where, "a duration such as " + setting.example(), DurationFormat::parse);
		}
		if (type == Double.class) {
			return parse(name, (String) attribute, where, "a number such as " + setting.example(), Double::valueOf);
		}
		if (type == Boolean.class) {
			return parse(name, (String) attribute, where, "true or false", (text) -> switch (text) {
				case "true" -> true;
				case "false" -> false;
				default -> throw new IllegalArgumentException(text);
			});
		}
		String text = resolve(name, (String) attribute, where);
		return StringUtils.hasText(text) ? text : null;
	}

	private <T> @Nullable T parse(String attribute, String text, String where, String expected,
			Function<String, T> parser) {
		String value = resolve(attribute, text, where);
		if (!StringUtils.hasText(value)) {
			return null;
		}
		try {
			return parser.apply(value.trim());
		}
		catch (RuntimeException ex) {
			throw new BackoffConfigurationException("@Backoff(" + attribute + ")" + where, value, "must be " + expected,
					"Set " + attribute + " to " + expected + ", or remove it to keep the policy's.", ex);
		}
	}

	/** Resolves the placeholders of an attribute; one that cannot be resolved stops start-up. */
	String resolve(String attribute, String value, String where) {
		if (!StringUtils.hasText(value)) {
			return "";
		}
		String resolved;
		try {
			resolved = this.placeholders.resolveStringValue(value);
		}
		catch (RuntimeException ex) {
			// An unresolvable placeholder, or a bean expression that fails or names no bean.
			throw unresolved(attribute, value, where, ex);
		}
		// A lenient resolver leaves what it cannot resolve in place.
		if (resolved != null && resolved.contains("${")) {
			throw unresolved(attribute, value, where, null);
		}
		return (resolved != null) ? resolved : "";
	}

	private static BackoffConfigurationException unresolved(String attribute, String value, String where,
			@Nullable Exception cause) {
		String why = (cause != null) ? " (" + cause.getMessage() + ")" : "";
		if (value.contains("#{")) {
			return new BackoffConfigurationException("@Backoff(" + attribute + ")" + where, value,
					"must only use bean expressions that evaluate" + why,
					"Correct the expression, or define the bean it names.", cause);
		}
		return new BackoffConfigurationException("@Backoff(" + attribute + ")" + where, value,
				"must only use placeholders that resolve" + why,
				"Define the property it names, or give the placeholder a default: ${name:default}.", cause);
	}

}
