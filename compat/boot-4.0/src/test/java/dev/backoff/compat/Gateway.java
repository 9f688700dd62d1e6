package dev.backoff.compat;

import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.spring.http.BackoffHttp;
import dev.backoff.spring.http.ReactiveBackoffHttp;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * A gateway as Spring Cloud applications write one: singleton {@code @LoadBalanced} builders,
 * one client of service {@code customers} retried under policy {@code customers}, built as
 * docs/http-clients.md shows, and another client from the same builder without a policy.
 */
@SpringBootApplication
class Gateway {

	@Bean
	@LoadBalanced
	WebClient.Builder loadBalancedWebClientBuilder() {
		return WebClient.builder();
	}

	@Bean
	@LoadBalanced
	RestClient.Builder loadBalancedRestClientBuilder() {
		return RestClient.builder();
	}

	@Bean
	WebClient customersClient(@LoadBalanced WebClient.Builder builder, ReactiveBackoffHttp http) {
		return http.builder(builder, "customers").baseUrl("http://customers").build();
	}

	@Bean
	WebClient unretriedClient(@LoadBalanced WebClient.Builder builder) {
		return builder.baseUrl("http://customers").build();
	}

	@Bean
	RestClient customersRestClient(@LoadBalanced RestClient.Builder builder, BackoffHttp http) {
		return http.builder(builder, "customers").baseUrl("http://customers").build();
	}

	@Bean
	RestClient unretriedRestClient(@LoadBalanced RestClient.Builder builder) {
		return builder.baseUrl("http://customers").build();
	}

	/** A {@code @Backoff} method whose first call of each pair fails. */
	@Service
	static class Inventory {

		private final AtomicInteger calls = new AtomicInteger();

		@Backoff("inventory")
		public String count() {
			if (this.calls.incrementAndGet() % 2 == 1) {
				throw new UncheckedIOException(new java.io.IOException("the first attempt fails"));
			}
			return "7";
		}

	}

}
