package dev.backoff.autoconfigure.actuate;

import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import dev.backoff.spring.operation.BackoffCallCounts;
import dev.backoff.spring.operation.BackoffOperationSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the {@link BackoffEndpoint}: follows Actuator's usual availability
 * and exposure settings ({@code management.endpoints.web.exposure.include=backoff}).
 */
@AutoConfiguration(after = { BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class })
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(BackoffOperationSource.class)
@ConditionalOnAvailableEndpoint(BackoffEndpoint.class)
public final class BackoffEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	BackoffEndpoint backoffEndpoint(BackoffOperationSource operations, ObjectProvider<BackoffCallCounts> counts) {
		return new BackoffEndpoint(operations, counts.getIfAvailable());
	}

	@Bean
	OperationInvokerAdvisor backoffSettingsBodyAdvisor() {
		return new SettingsBodyAdvisor();
	}

	/** A change sent while writes are off is answered with the property that turns them on. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass(name = "org.springframework.web.servlet.HandlerMapping")
	static class ServletWritesOffConfiguration {

		@Bean
		WritesOffServletMapping backoffWritesOffMapping(ObjectProvider<EndpointAccessResolver> access,
				ObjectProvider<PathMappedEndpoints> endpoints) {
			return new WritesOffServletMapping(new WritesOff(access, endpoints));
		}

	}

	/** The same for WebFlux. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
	@ConditionalOnClass(name = "org.springframework.web.reactive.HandlerMapping")
	static class ReactiveWritesOffConfiguration {

		@Bean
		WritesOffReactiveMapping backoffWritesOffMapping(ObjectProvider<EndpointAccessResolver> access,
				ObjectProvider<PathMappedEndpoints> endpoints) {
			return new WritesOffReactiveMapping(new WritesOff(access, endpoints));
		}

	}

}
