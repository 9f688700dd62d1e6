package dev.backoff.spring;

import dev.backoff.spring.config.BackoffSwitches;
import dev.backoff.spring.operation.BackoffOperationSource;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/** The conditions of {@link BackoffConfiguration}: plain Spring ones, read as Boot's are. */
final class BackoffConditions {

	private BackoffConditions() {
	}

	private static boolean isPresent(ConditionContext context, String className) {
		return ClassUtils.isPresent(className, context.getClassLoader());
	}

	/**
	 * Unless {@code backoff.enabled=false}, after checking every switch as Boot does; and only
	 * where no operation source is defined yet (by Spring Boot's auto-configuration, or by hand).
	 */
	static final class Enabled implements ConfigurationCondition {

		@Override
		public ConfigurationPhase getConfigurationPhase() {
			return ConfigurationPhase.REGISTER_BEAN;
		}

		@Override
		public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
			if (Boolean.FALSE.equals(BackoffSwitches.check(context.getEnvironment()))) {
				return false;
			}
			ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
			return beanFactory == null
					|| beanFactory.getBeanNamesForType(BackoffOperationSource.class, true, false).length == 0;
		}

	}

	/** {@code backoff.mode=proxy}, the default: {@code aspectj} retries through the woven aspect instead. */
	static final class ProxyMode implements Condition {

		@Override
		public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
			return !"aspectj".equalsIgnoreCase(context.getEnvironment().getProperty("backoff.mode"));
		}

	}

	/** Micrometer is present and {@code backoff.metrics.enabled} is not {@code false}. */
	static final class Metrics implements Condition {

		@Override
		public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
			return isPresent(context, "io.micrometer.core.instrument.MeterRegistry")
					&& !Boolean.FALSE.equals(BackoffSwitches.flag(context.getEnvironment(), "backoff.metrics.enabled"));
		}

	}

	/** {@code backoff.observations.enabled=true}: without Boot, observations are asked for. */
	static final class Observations implements Condition {

		@Override
		public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
			return Boolean.TRUE.equals(BackoffSwitches.flag(context.getEnvironment(), "backoff.observations.enabled"));
		}

	}

	/** spring-web is present: HTTP failures are classified by status, and {@code BackoffHttp} is defined. */
	static final class Http implements Condition {

		@Override
		public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
			return isPresent(context, HTTP_FAILURE);
		}

	}

	/** spring-webflux is present: {@code ReactiveBackoffHttp} is defined. */
	static final class ReactiveHttp implements Condition {

		@Override
		public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
			return isPresent(context, "org.springframework.web.reactive.function.client.ExchangeFilterFunction");
		}

	}

	/** The class whose presence means spring-web is there. */
	static final String HTTP_FAILURE = "org.springframework.web.client.RestClientResponseException";

}
