package dev.backoff.spring.http;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.backoff.spring.operation.BackoffOperation;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;

/**
 * One client's requests under a policy, for {@link BackoffRequestInterceptor} and
 * {@link BackoffExchangeFilter}: whether a request may be retried, and its operation, looked up
 * once per HTTP method so that a request allocates no key.
 */
final class ClientOperations {

	private final BackoffHttp http;

	private final String policy;

	private final Class<?> returnType;

	private final Map<HttpMethod, BackoffOperation> operations = new ConcurrentHashMap<>();

	/**
	 * @param http the requests' classification and the operation source
	 * @param policy a configured policy's name
	 * @param returnType what the client's calls return, as an {@code @Backoff} method's type
	 */
	ClientOperations(BackoffHttp http, String policy, Class<?> returnType) {
		this.http = http;
		this.policy = policy;
		this.returnType = returnType;
	}

	String getPolicy() {
		return this.policy;
	}

	boolean isRetryable(HttpMethod method, HttpHeaders headers) {
		return this.http.isRetryable(this.policy, method, headers);
	}

	BackoffOperation get(HttpMethod method) {
		BackoffOperation operation = this.operations.get(method);
		if (operation == null) {
			operation = this.operations.computeIfAbsent(method,
					(key) -> this.http.operation(this.policy, key, this.returnType));
		}
		return operation;
	}

}
