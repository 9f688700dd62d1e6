package dev.backoff.compat;

import dev.backoff.spring.http.ReactiveBackoffHttp;

import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * A client whose policy name has a typo, for the report docs/http-clients.md shows. Not a
 * {@code @Configuration}, so that the gateway's scan leaves it out; a test registers it.
 */
class CustomersClientConfiguration {

	@Bean
	WebClient customersClient(WebClient.Builder builder, ReactiveBackoffHttp http) {
		return http.builder(builder, "customer").baseUrl("http://customers-service").build();
	}

}
