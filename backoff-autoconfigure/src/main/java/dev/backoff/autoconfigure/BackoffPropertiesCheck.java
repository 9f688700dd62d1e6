package dev.backoff.autoconfigure;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import dev.backoff.spring.config.BackoffConfigurationException;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * The checks that Spring Boot's lenient binding leaves out, so that a mistake under
 * {@code backoff.*} stops start-up instead of being silently ignored: a key that is no Backoff
 * setting ({@code max-atempts}, {@code backoff.polices}), a list where one value belongs, a
 * fraction where a whole number belongs (YAML's {@code 2.9} would otherwise bind as 2), and a
 * switch other than {@code true} or {@code false} (Boot reads {@code yes}, {@code on} or
 * {@code 1}; {@code @EnableBackoff} and Backoff's other switches refuse them). Run
 * once, when the policies are built; {@code backoff.test.*} belongs to backoff-test.
 */
final class BackoffPropertiesCheck {

	private static final ConfigurationPropertyName BACKOFF = ConfigurationPropertyName.of("backoff");

	private static final ConfigurationPropertyName TEST = ConfigurationPropertyName.of("backoff.test");

	private BackoffPropertiesCheck() {
	}

	/**
	 * @param environment the environment whose {@code backoff.*} properties to check
	 * @throws BackoffConfigurationException for the first mistake found
	 */
	static void check(Environment environment) {
		List<ConfigurationPropertySource> sources = new ArrayList<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			sources.add(source.filter((name) -> !TEST.isAncestorOf(name)));
		}
		try {
			new Binder(sources, new PropertySourcesPlaceholdersResolver(environment)).bind(BACKOFF, Bindable.of(BackoffProperties.class),
					new NoUnboundElementsBindHandler(new WholeNumbers(new Switches())));
		}
		catch (BindException ex) {
			if (ex.getCause() instanceof UnboundConfigurationPropertiesException unbound) {
				throw unknown(unbound.getUnboundProperties());
			}
			if (ex.getCause() instanceof BackoffConfigurationException invalid) {
				throw invalid;
			}
			// A value that does not convert: the binding of BackoffProperties itself reports it.
		}
	}

	private static BackoffConfigurationException unknown(Set<ConfigurationProperty> unbound) {
		ConfigurationProperty first = unbound.stream()
			.min(Comparator.comparing((property) -> property.getName().toString()))
			.orElseThrow();
		String name = first.getName().toString();
		String others = (unbound.size() > 1) ? " (and " + (unbound.size() - 1) + " more)" : "";
		if (first.getName().isLastElementIndexed()) {
			String parent = first.getName().getParent().toString();
			return new BackoffConfigurationException(name, first.getValue(),
					"is an element of a list, but " + parent + " takes one value" + others,
					"Give " + parent + " a single value.");
		}
		return BackoffConfigurationException.unknownSetting(name, first.getValue(), others, BackoffProperties.class);
	}

	/** Rejects a fraction bound to a whole-number setting, which binding would truncate. */
	private static final class WholeNumbers extends AbstractBindHandler {

		WholeNumbers(AbstractBindHandler parent) {
			super(parent);
		}

		@Override
		public @Nullable Object onSuccess(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
				Object result) {
			Class<?> type = target.getType().resolve(Object.class);
			ConfigurationProperty property = context.getConfigurationProperty();
			if ((type == Integer.class || type == int.class) && property != null && !isWhole(property.getValue())) {
				throw new BackoffConfigurationException(name.toString(), property.getValue(), "must be a whole number",
						"Update " + name + ": it must be a whole number, such as 3.");
			}
			return super.onSuccess(name, target, context, result);
		}

		private static boolean isWhole(@Nullable Object value) {
			String text = (value != null) ? value.toString().trim().toLowerCase(Locale.ROOT) : "";
			if (!StringUtils.hasText(text)) {
				return true;
			}
			try {
				return new BigDecimal(text).stripTrailingZeros().scale() <= 0;
			}
			catch (NumberFormatException ex) {
				// Not a number at all: left to the binding's own conversion error.
				return true;
			}
		}

	}

	/**
	 * Rejects a switch ({@code retry-non-idempotent}, {@code budget.enabled}) that Boot's
	 * conversion reads as a boolean but is neither {@code true} nor {@code false}, in the words
	 * {@code SettingsBinder} uses without Boot.
	 */
	private static final class Switches extends AbstractBindHandler {

		@Override
		public @Nullable Object onSuccess(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
				Object result) {
			Class<?> type = target.getType().resolve(Object.class);
			ConfigurationProperty property = context.getConfigurationProperty();
			if ((type == Boolean.class || type == boolean.class) && property != null && !isSwitch(property.getValue())) {
				throw BackoffConfigurationException.unbound(name.toString(), property.getValue(), Boolean.class, null);
			}
			return result;
		}

		private static boolean isSwitch(@Nullable Object value) {
			if (value == null || value instanceof Boolean) {
				return true;
			}
			String text = value.toString().trim().toLowerCase(Locale.ROOT);
			return text.isEmpty() || text.equals("true") || text.equals("false");
		}

	}

}
