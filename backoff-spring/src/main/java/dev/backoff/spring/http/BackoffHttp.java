package dev.backoff.spring.http;

import java.util.Objects;
import java.util.Set;

import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.PolicySnapshot;
import dev.backoff.spring.config.Suggestions;
import dev.backoff.spring.operation.BackoffOperation;
import dev.backoff.spring.operation.BackoffOperationSource;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.util.StringUtils;
import org.springframework.web.client.RestClient;

/**
 * Retries the requests of Spring's HTTP clients under a named policy of
 * {@code backoff.policies}: {@link #interceptor} for {@code RestClient} and
 * {@code RestTemplate} ({@link ReactiveBackoffHttp#filter} for {@code WebClient}), and
 * through them the {@code @HttpExchange} interface clients built on such a client. Each request is one call of
 * the policy, with everything a {@code @Backoff} method has: its budget, the HTTP
 * classification and {@code Retry-After}, the throttling schedule, meters and observations
 * tagged {@code method="<policy> <HTTP method>"} (such as {@code downstream GET}: bounded,
 * never a URL), live changes through the endpoint, and the nested guard.
 *
 * <pre class="code">
 * RestClient client = http.builder(builder, "quotes").baseUrl("http://quotes").build();
 * WebClient webClient = reactiveHttp.builder(webBuilder, "quotes").baseUrl("http://quotes").build();
 * </pre>
 *
 * <p>Idempotency: a request that failed may have taken effect on the server, so only the
 * methods that RFC 9110 calls idempotent ({@code GET}, {@code HEAD}, {@code OPTIONS},
 * {@code PUT}, {@code DELETE}, {@code TRACE}) are retried; a {@code POST} or {@code PATCH}
 * only when it carries a non-blank {@value #IDEMPOTENCY_KEY} header, by which the server can tell a
 * retry from a new request, or when the policy sets {@code retry-non-idempotent: true}.
 * Another request goes through once, untouched and unmetered by Backoff.
 *
 * <p>A response with an error status (4xx, 5xx) is an attempt's failure, read by
 * {@link HttpFailures} as a thrown {@code RestClientResponseException} or
 * {@code WebClientResponseException} would be: so the policy's {@code retry-on},
 * {@code abort-on}, throttling and {@code Retry-After} apply to it. When the call ends on
 * such a failure, the client gets the last response itself, its body unread, and handles it as
 * it would have without retries (its status handlers throw as usual).
 *
 * <p>The WebClient filter is on a bean of its own, {@link ReactiveBackoffHttp}, present when
 * spring-webflux is: a method with a WebFlux type in its signature would stop this class
 * from loading in an application without WebFlux, as Spring reads a bean's methods.
 */
public class BackoffHttp {

	/** The request header that makes a {@code POST} or {@code PATCH} safe to retry. */
	public static final String IDEMPOTENCY_KEY = "Idempotency-Key";

	private static final Set<HttpMethod> IDEMPOTENT = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS,
			HttpMethod.PUT, HttpMethod.DELETE, HttpMethod.TRACE);

	private static final Set<HttpMethod> STANDARD = Set.of(HttpMethod.values());

	/** The requests whose copies may overlap: idempotent, and sent without a body that each copy would write. */
	private static final Set<HttpMethod> HEDGEABLE = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS,
			HttpMethod.DELETE, HttpMethod.TRACE);

	private final BackoffOperationSource operations;

	/**
	 * @param operations the source of every operation, which keeps the clients' ones beside
	 * the methods' so that meters, the endpoint and live changes see them
	 */
	public BackoffHttp(BackoffOperationSource operations) {
		this.operations = operations;
	}

	/**
	 * An interceptor for {@code RestClient.Builder.requestInterceptor} or
	 * {@code RestTemplate.getInterceptors()}. Every retry runs the interceptors after it and
	 * the request again, with the same body: Spring buffers an intercepted request's body.
	 * Put it first, so that the interceptors after it (authentication, say) run for every attempt.
	 * @param policy a policy name under {@code backoff.policies}, or {@value BackoffPolicies#DEFAULTS}
	 * @return the interceptor
	 * @throws BackoffConfigurationException if there is no such policy, or it sets an
	 * {@code attempt-timeout} of its own, which a blocking client cannot honour
	 */
	public ClientHttpRequestInterceptor interceptor(String policy) {
		return interceptor(policy, "BackoffHttp.interceptor(\"" + policy + "\")");
	}

	private ClientHttpRequestInterceptor interceptor(String policy, String call) {
		requirePolicy(policy, call);
		// Blocking: a timeout set on the policy itself cannot apply, so it stops start-up here.
		this.operations.checkBlockingClient(policy, call);
		return new BackoffRequestInterceptor(new ClientOperations(this, policy, ClientHttpResponse.class));
	}

	/**
	 * A copy of a {@code RestClient.Builder} whose clients retry under the policy: the
	 * {@link #interceptor} first in the copy's chain, before the interceptors already there
	 * (such as a load balancer's, so that each retry chooses an instance again), and the
	 * builder given left as it was (a builder bean may be shared, as Spring Cloud's
	 * {@code @LoadBalanced} one is, and every client built from it would retry under the policy).
	 * <pre class="code">
	 * RestClient customers = http.builder(loadBalancedBuilder, "customers").baseUrl("http://customers").build();
	 * </pre>
	 * @param builder the builder to copy, unchanged
	 * @param policy a policy name under {@code backoff.policies}, or {@value BackoffPolicies#DEFAULTS}
	 * @return the copy, with the interceptor first
	 * @throws BackoffConfigurationException as {@link #interceptor} does
	 */
	public RestClient.Builder builder(RestClient.Builder builder, String policy) {
		ClientHttpRequestInterceptor interceptor = interceptor(policy, "BackoffHttp.builder(builder, \"" + policy + "\")");
		return builder.clone().requestInterceptors((interceptors) -> interceptors.add(0, interceptor));
	}

	/**
	 * @param policy the policy asked for
	 * @param call the call as written, such as {@code BackoffHttp.interceptor("quotes")}: with its
	 * caller, it says where the application asked for a policy that is not configured
	 */
	String requirePolicy(String policy, String call) {
		BackoffPolicies policies = this.operations.getPolicies();
		if (policies.get(policy) == null) {
			Set<String> names = policies.getNames();
			throw BackoffConfigurationException.inCode(CallSite.describe(call), policy,
					"must name a policy under backoff.policies ("
							+ (names.isEmpty() ? "none is configured" : "configured: " + String.join(", ", names))
							+ ") or " + BackoffPolicies.DEFAULTS,
					Suggestions.didYouMean(policy, names, BackoffPolicies.DEFAULTS) + "Add backoff.policies." + policy
							+ " to the configuration"
							+ (names.isEmpty() ? "." : ", or name one of " + String.join(", ", names) + "."));
		}
		return policy;
	}

	/**
	 * Whether a request may be retried: an idempotent method, a keyed {@code POST} or
	 * {@code PATCH}, or a policy that retries the non-idempotent ones.
	 */
	boolean isRetryable(String policy, HttpMethod method, HttpHeaders headers) {
		// A blank key identifies nothing: the server cannot tell a retry by it.
		return IDEMPOTENT.contains(method) || StringUtils.hasText(headers.getFirst(IDEMPOTENCY_KEY))
				|| this.operations.getPolicies().isRetryNonIdempotent(policy);
	}

	/**
	 * Refuses a policy that both hedges and retries non-idempotent requests: a user who asks for
	 * both expects a POST hedged, which would send it twice at once (an Idempotency-Key does not
	 * make two copies in flight safe), so neither is guessed.
	 */
	void requireHedgeableIfHedged(String policy) {
		PolicySnapshot snapshot = this.operations.getPolicies().snapshot();
		int maxHedges = Objects.requireNonNull(snapshot.get(policy)).getHedging().getMaxHedges();
		if (maxHedges > 0 && snapshot.isRetryNonIdempotent(policy)) {
			String property = snapshot.getOwnMaxHedgesProperty(policy);
			throw new BackoffConfigurationException((property != null) ? property : "backoff.defaults.max-hedges",
					String.valueOf(maxHedges),
					"cannot be combined with retry-non-idempotent on policy " + policy + ": a hedge would send a "
							+ "POST or PATCH twice at once, which an Idempotency-Key does not make safe",
					"Use a policy without retry-non-idempotent for the hedged GETs, and another for the requests "
							+ "with a body.");
		}
	}

	/** The operation of a policy's requests of one method, named {@code <policy> <METHOD>}. */
	BackoffOperation operation(String policy, HttpMethod method, Class<?> returnType) {
		// Bounded: a method outside the standard nine is named OTHER.
		String name = policy + " " + (STANDARD.contains(method) ? method.name() : "OTHER");
		return this.operations.getOperation(policy, name, returnType, HEDGEABLE.contains(method));
	}

}
