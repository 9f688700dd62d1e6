package dev.backoff.sample.quotes;

import dev.backoff.spring.http.BackoffHttp;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.support.RestClientAdapter;
import org.springframework.web.service.invoker.HttpServiceProxyFactory;

/**
 * Scenario 1b: retry at the HTTP client. The {@link QuoteService} client is built on a
 * {@code RestClient} whose first interceptor is Backoff's, under the {@code quote-service}
 * policy: every GET it sends is retried by the policy (meters tagged
 * {@code method="quote-service GET"}), while a POST would go through once.
 */
@Configuration(proxyBeanMethods = false)
class QuoteServiceConfiguration {

	@Bean
	QuoteService quoteService(RestClient.Builder builder, BackoffHttp http) {
		RestClient client = http.builder(builder, "quote-service").build();
		return HttpServiceProxyFactory.builderFor(RestClientAdapter.create(client))
			.build()
			.createClient(QuoteService.class);
	}

}
