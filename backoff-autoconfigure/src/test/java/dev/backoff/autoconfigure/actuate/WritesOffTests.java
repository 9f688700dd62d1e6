package dev.backoff.autoconfigure.actuate;

import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementContextAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.HttpRequestHandler;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.server.WebHandler;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The answer to a change of the read-only endpoint, in both web stacks, with Actuator's own
 * reading of the access and path settings (the sample's {@code ActuatorTests} sends it over
 * real HTTP to Spring MVC): given only where Actuator maps no write operation.
 */
class WritesOffTests {

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(EndpointAutoConfiguration.class,
			WebEndpointAutoConfiguration.class, ManagementContextAutoConfiguration.class, BackoffAutoConfiguration.class,
			BackoffEndpointAutoConfiguration.class);

	private final WebApplicationContextRunner servlet = new WebApplicationContextRunner()
		.withConfiguration(CONFIGURATIONS)
		.withPropertyValues("management.endpoints.web.exposure.include=backoff", "backoff.policies.quotes.max-attempts=2");

	private final ReactiveWebApplicationContextRunner reactive = new ReactiveWebApplicationContextRunner()
		.withConfiguration(CONFIGURATIONS)
		.withPropertyValues("management.endpoints.web.exposure.include=backoff", "backoff.policies.quotes.max-attempts=2");

	@Test
	void springMvcAnswersAChangeOfTheReadOnlyEndpointWithTheProperty() {
		this.servlet.run((context) -> {
			WritesOffServletMapping mapping = context.getBean(WritesOffServletMapping.class);
			for (String method : new String[] { "POST", "DELETE" }) {
				HandlerExecutionChain chain = mapping.getHandler(new MockHttpServletRequest(method, "/actuator/backoff/quotes"));
				assertThat(chain).as(method).isNotNull();
				MockHttpServletResponse response = new MockHttpServletResponse();
				((HttpRequestHandler) chain.getHandler()).handleRequest(new MockHttpServletRequest(), response);
				assertThat(response.getStatus()).isEqualTo(405);
				assertThat(response.getHeader(HttpHeaders.ALLOW)).isEqualTo("GET");
				assertThat(response.getContentAsString()).contains("Set management.endpoint.backoff.access=unrestricted")
					.contains("\"path\":\"/actuator/backoff/quotes\"");
			}
			// What Actuator maps, or nobody does, is left alone.
			assertThat(mapping.getHandler(new MockHttpServletRequest("GET", "/actuator/backoff/quotes"))).isNull();
			assertThat(mapping.getHandler(new MockHttpServletRequest("POST", "/actuator/backoff"))).isNull();
			assertThat(mapping.getHandler(new MockHttpServletRequest("POST", "/actuator/backoff/quotes/x"))).isNull();
			assertThat(mapping.getHandler(new MockHttpServletRequest("POST", "/orders/quotes"))).isNull();
		});
	}

	@Test
	void followsTheEndpointsPathMapping() {
		this.servlet.withPropertyValues("management.endpoints.web.base-path=/manage",
				"management.endpoints.web.path-mapping.backoff=retries").run((context) -> {
					WritesOffServletMapping mapping = context.getBean(WritesOffServletMapping.class);
					assertThat(mapping.getHandler(new MockHttpServletRequest("POST", "/manage/retries/quotes"))).isNotNull();
					assertThat(mapping.getHandler(new MockHttpServletRequest("POST", "/actuator/backoff/quotes"))).isNull();
				});
	}

	@Test
	void saysNothingWhereWritesAreOn() {
		// Upper case: a context runner's environment has no Spring Boot conversion of "unrestricted".
		this.servlet.withPropertyValues("management.endpoint.backoff.access=UNRESTRICTED").run((context) -> {
			WritesOffServletMapping mapping = context.getBean(WritesOffServletMapping.class);
			assertThat(mapping.getHandler(new MockHttpServletRequest("POST", "/actuator/backoff/quotes"))).isNull();
		});
		this.servlet.withPropertyValues("management.endpoints.access.default=UNRESTRICTED").run((context) -> {
			WritesOffServletMapping mapping = context.getBean(WritesOffServletMapping.class);
			assertThat(mapping.getHandler(new MockHttpServletRequest("POST", "/actuator/backoff/quotes"))).isNull();
		});
	}

	@Test
	void refusesWhereMaxPermittedCapsAnUnrestrictedEndpoint() {
		this.servlet
			.withPropertyValues("management.endpoint.backoff.access=UNRESTRICTED",
					"management.endpoints.access.max-permitted=READ_ONLY")
			.run((context) -> assertThat(context.getBean(WritesOffServletMapping.class)
				.getHandler(new MockHttpServletRequest("POST", "/actuator/backoff/quotes"))).isNotNull());
	}

	@Test
	void saysNothingWhenTheEndpointIsNotOnTheWeb() {
		new WebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withPropertyValues("management.endpoints.jmx.exposure.include=backoff", "spring.jmx.enabled=true")
			.run((context) -> {
				// The endpoint is there, over JMX only: no web path to answer on.
				assertThat(context).hasSingleBean(BackoffEndpoint.class);
				for (WritesOffServletMapping mapping : context.getBeansOfType(WritesOffServletMapping.class).values()) {
					assertThat(mapping.getHandler(new MockHttpServletRequest("POST", "/actuator/backoff/quotes"))).isNull();
				}
			});
	}

	@Test
	void webFluxAnswersAChangeOfTheReadOnlyEndpointWithTheProperty() {
		this.reactive.run((context) -> {
			assertThat(context).doesNotHaveBean(WritesOffServletMapping.class);
			WritesOffReactiveMapping mapping = context.getBean(WritesOffReactiveMapping.class);
			MockServerWebExchange exchange = MockServerWebExchange
				.from(MockServerHttpRequest.method(HttpMethod.POST, "/actuator/backoff/quotes"));
			WebHandler handler = (WebHandler) mapping.getHandler(exchange).block();
			assertThat(handler).isNotNull();
			handler.handle(exchange).block();
			assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.METHOD_NOT_ALLOWED);
			assertThat(exchange.getResponse().getHeaders().getAllow()).containsExactly(HttpMethod.GET);
			assertThat(exchange.getResponse().getBodyAsString().block())
				.contains("Set management.endpoint.backoff.access=unrestricted");
			assertThat(mapping.getHandler(MockServerWebExchange.from(MockServerHttpRequest.get("/actuator/backoff/quotes")))
				.blockOptional()).isEmpty();
		});
	}

}
