package dev.backoff.spring.http;

import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies;
import reactor.core.publisher.Mono;

import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Retries the requests of {@code WebClient} under a named policy of {@code backoff.policies},
 * exactly as {@link BackoffHttp} retries {@code RestClient}'s (idempotency, error responses,
 * meters, live changes and all); a bean when spring-webflux is present.
 *
 * <pre class="code">
 * WebClient client = reactiveHttp.builder(builder, "quotes").baseUrl("http://quotes").build();
 * </pre>
 */
public class ReactiveBackoffHttp {

	private final BackoffHttp http;

	/**
	 * @param http the blocking clients' counterpart, whose operations and rules it shares
	 */
	public ReactiveBackoffHttp(BackoffHttp http) {
		this.http = http;
	}

	/**
	 * A filter for {@code WebClient.Builder.filter}. Every retry subscribes to the exchange
	 * again, running the filters after it and writing the request body anew; a body that
	 * cannot be written twice fails the retry with an {@link IllegalStateException} that says
	 * so, rather than send an empty request. Put it first, so that the filters after it run
	 * for every attempt. With {@code max-hedges}, the requests without a body (GET, HEAD,
	 * OPTIONS, DELETE, TRACE) are hedged, the copies that lose cancelled and their answers
	 * released; a request with a body never is.
	 * @param policy a policy name under {@code backoff.policies}, or {@value BackoffPolicies#DEFAULTS}
	 * @return the filter
	 * @throws BackoffConfigurationException if there is no such policy, or it both hedges and
	 * retries non-idempotent requests
	 */
	public ExchangeFilterFunction filter(String policy) {
		return filter(policy, "ReactiveBackoffHttp.filter(\"" + policy + "\")");
	}

	private ExchangeFilterFunction filter(String policy, String call) {
		this.http.requireHedgeableIfHedged(this.http.requirePolicy(policy, call));
		return new BackoffExchangeFilter(new ClientOperations(this.http, policy, Mono.class));
	}

	/**
	 * A copy of a {@code WebClient.Builder} whose clients retry under the policy: the
	 * {@link #filter} first in the copy's chain, before the filters already there (such as a
	 * load balancer's, so that each retry chooses an instance again), and the builder given
	 * left as it was. {@code builder.filter(...)} would change the builder itself, and a builder
	 * bean may be shared (Spring Cloud's {@code @LoadBalanced} one is a singleton): every client
	 * built from it would then retry under this policy, counted as its calls and drawing on its budget.
	 * <pre class="code">
	 * WebClient customers = http.builder(loadBalancedBuilder, "customers").baseUrl("http://customers").build();
	 * </pre>
	 * @param builder the builder to copy, unchanged
	 * @param policy a policy name under {@code backoff.policies}, or {@value BackoffPolicies#DEFAULTS}
	 * @return the copy, with the filter first
	 * @throws BackoffConfigurationException as {@link #filter} does
	 */
	public WebClient.Builder builder(WebClient.Builder builder, String policy) {
		ExchangeFilterFunction filter = filter(policy, "ReactiveBackoffHttp.builder(builder, \"" + policy + "\")");
		return builder.clone().filters((filters) -> filters.add(0, filter));
	}

}
