package dev.backoff.autoconfigure.metrics;

import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.BackoffProperties;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.metrics.BackoffMetrics;
import dev.backoff.spring.metrics.BackoffOverloadMetrics;
import dev.backoff.spring.metrics.BackoffPolicyMetrics;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code backoff.*} meters, and of the retry budgets' gauge (bound
 * by Spring Boot like every {@code MeterBinder} bean): active when Micrometer and a
 * {@link MeterRegistry} bean are present, unless {@code backoff.metrics.enabled=false}.
 * Ordered after Spring Boot's registry configuration, named rather than referenced so that a
 * missing jar never breaks class loading; histograms and percentiles of {@code backoff.delay}
 * follow the usual {@code management.metrics.distribution.*} settings.
 */
@AutoConfiguration(after = BackoffAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = { "backoff.enabled", "backoff.metrics.enabled" }, matchIfMissing = true)
public final class BackoffMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	BackoffMetrics backoffMetrics(MeterRegistry registry, BackoffProperties properties) {
		return new BackoffMetrics(registry, properties.getMetrics().getFailuresAtZero());
	}

	@Bean
	@ConditionalOnMissingBean
	BackoffPolicyMetrics backoffPolicyMetrics(BackoffPolicies policies) {
		return new BackoffPolicyMetrics(policies);
	}

	@Bean
	@ConditionalOnMissingBean
	BackoffOverloadMetrics backoffOverloadMetrics(BackoffPolicies policies) {
		return new BackoffOverloadMetrics(policies);
	}

}
