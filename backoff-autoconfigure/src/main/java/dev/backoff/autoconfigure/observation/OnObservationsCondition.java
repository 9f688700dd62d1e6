package dev.backoff.autoconfigure.observation;

import java.util.ArrayList;
import java.util.List;

import io.micrometer.observation.ObservationHandler;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Whether {@code @Backoff} calls are observed: {@code backoff.observations.enabled} when set;
 * when not, only if an {@link ObservationHandler} bean other than a meter observation handler
 * is defined (a tracing handler, or one of the application's own). Spring Boot's meter
 * handler alone would turn each call into two observations and four meters of its own: the
 * {@code backoff.*} meters already count the calls, and a call that succeeds at once would
 * cost about 40 times more for nothing that a trace shows.
 */
class OnObservationsCondition extends SpringBootCondition implements ConfigurationCondition {

	static final String PROPERTY = "backoff.observations.enabled";

	private static final String METER_HANDLER = "io.micrometer.core.instrument.observation.MeterObservationHandler";

	@Override
	public ConfigurationPhase getConfigurationPhase() {
		return ConfigurationPhase.REGISTER_BEAN;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		// Validated with Backoff's other switches (OnBackoffEnabledCondition), evaluated before.
		Boolean enabled = context.getEnvironment().getProperty(PROPERTY, Boolean.class);
		if (enabled != null) {
			return enabled ? ConditionOutcome.match(PROPERTY + " is true") : ConditionOutcome.noMatch(PROPERTY + " is false");
		}
		List<String> handlers = handlersOtherThanMeters(context);
		return handlers.isEmpty()
				? ConditionOutcome.noMatch(PROPERTY + " is not set and no observation handler but a meter handler is defined")
				: ConditionOutcome.match(PROPERTY + " is not set and observation handlers " + handlers + " are defined");
	}

	private static List<String> handlersOtherThanMeters(ConditionContext context) {
		ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
		List<String> names = new ArrayList<>();
		if (beanFactory == null) {
			return names;
		}
		Class<?> meterHandler = meterHandler(context.getClassLoader());
		for (String name : beanFactory.getBeanNamesForType(ObservationHandler.class, true, false)) {
			Class<?> type = beanFactory.getType(name, false);
			if (type == null || meterHandler == null || !meterHandler.isAssignableFrom(type)) {
				names.add(name);
			}
		}
		return names;
	}

	private static @Nullable Class<?> meterHandler(@Nullable ClassLoader classLoader) {
		return ClassUtils.isPresent(METER_HANDLER, classLoader) ? ClassUtils.resolveClassName(METER_HANDLER, classLoader)
				: null;
	}

}
