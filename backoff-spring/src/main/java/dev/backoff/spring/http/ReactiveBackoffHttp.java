package dev.backoff.spring.http;

import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies;
import reactor.core.publisher.Mono;

import org.springframework.web.reactive.function.client.ExchangeFilterFunction;

/**
 * Retries the requests of {@code WebClient} under a named policy of {@code backoff.policies},
 * exactly as {@link BackoffHttp} retries {@code RestClient}'s (idempotency, error responses,
 * meters, live changes and all); a bean when spring-webflux is present.
 *
 * <pre class="code">
 * WebClient client = builder.baseUrl("http://quotes").filter(reactiveHttp.filter("quotes")).build();
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
		this.http.requireHedgeableIfHedged(this.http.requirePolicy(policy));
		return new BackoffExchangeFilter(new ClientOperations(this.http, policy, Mono.class));
	}

}
