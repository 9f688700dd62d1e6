package dev.backoff.autoconfigure.aot;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.backoff.autoconfigure.BackoffProperties;
import dev.backoff.spring.config.PolicySettings;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.TypeReference;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Contributes, at build time, reflection hints for the exception classes that the
 * {@code backoff.*} configuration names in {@code retry-on} and {@code abort-on}: they are
 * loaded by name when the policies are built, which a native image can only do for registered
 * classes. The configuration is bound from the build's environment, so a class named only in
 * configuration given at run time is not covered (say it in {@code application.yml}).
 */
class BackoffPropertiesAotProcessor implements BeanFactoryInitializationAotProcessor {

	@Override
	public @Nullable BeanFactoryInitializationAotContribution processAheadOfTime(
			ConfigurableListableBeanFactory beanFactory) {
		if (!beanFactory.containsBean(ConfigurableApplicationContext.ENVIRONMENT_BEAN_NAME)) {
			return null;
		}
		Environment environment = beanFactory.getBean(ConfigurableApplicationContext.ENVIRONMENT_BEAN_NAME,
				Environment.class);
		BackoffProperties properties = Binder.get(environment)
			.bind("backoff", BackoffProperties.class)
			.orElseGet(BackoffProperties::new);
		Set<String> types = exceptionTypes(properties);
		if (types.isEmpty()) {
			return null;
		}
		ClassLoader classLoader = beanFactory.getBeanClassLoader();
		return (generationContext, code) -> {
			for (String type : types) {
				if (ClassUtils.isPresent(type, classLoader)) {
					generationContext.getRuntimeHints().reflection().registerType(TypeReference.of(type));
				}
			}
		};
	}

	/** Every class name under {@code retry-on} and {@code abort-on}, of the defaults and of each policy. */
	static Set<String> exceptionTypes(BackoffProperties properties) {
		List<PolicySettings> all = new ArrayList<>(properties.getPolicies().values());
		all.add(properties.getDefaults());
		Set<String> types = new LinkedHashSet<>();
		for (PolicySettings policy : all) {
			addAll(types, policy.getRetryOn());
			addAll(types, policy.getAbortOn());
		}
		return types;
	}

	private static void addAll(Set<String> types, @Nullable List<String> names) {
		if (names != null) {
			names.forEach((name) -> types.add(name.trim()));
		}
	}

}
