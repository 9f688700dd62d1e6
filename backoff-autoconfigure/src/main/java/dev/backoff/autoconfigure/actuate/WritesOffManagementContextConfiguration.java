package dev.backoff.autoconfigure.actuate;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The answer to a change sent while the {@code backoff} endpoint is read-only ({@link WritesOff}),
 * in the context that serves Actuator's endpoints: the application's, or the management
 * server's own when {@code management.server.port} differs, so that the application's port
 * answers nothing new.
 */
@ManagementContextConfiguration(proxyBeanMethods = false)
@ConditionalOnAvailableEndpoint(BackoffEndpoint.class)
public final class WritesOffManagementContextConfiguration {

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
