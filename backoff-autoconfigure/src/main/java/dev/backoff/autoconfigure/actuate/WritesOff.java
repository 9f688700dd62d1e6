package dev.backoff.autoconfigure.actuate;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.http.HttpMethod;
import org.springframework.util.function.SingletonSupplier;

/**
 * The answer to a change sent to the {@code backoff} endpoint while it is read-only. Actuator
 * maps no write operation then, so the web layer would answer a bare 405; this one says which
 * property turns writes on. Nothing changes either way: the answer is a refusal, and it is
 * only given where Actuator itself would refuse.
 */
final class WritesOff {

	/** The property that lets the endpoint change policies. */
	static final String PROPERTY = "management.endpoint.backoff.access";

	static final String MESSAGE = "The backoff endpoint is read-only, so it changes no policy. Set " + PROPERTY
			+ "=unrestricted (and management.endpoints.access.max-permitted to unrestricted, if it is set) "
			+ "where only operators can reach the endpoint: see docs/endpoint.md, \"Live policies\".";

	private final Supplier<@Nullable String> path;

	/**
	 * @param access Actuator's reading of the endpoints' access settings
	 * @param endpoints the web paths of the exposed endpoints
	 */
	WritesOff(ObjectProvider<EndpointAccessResolver> access, ObjectProvider<PathMappedEndpoints> endpoints) {
		// Read once, at the first change sent: Actuator decides the operations at start-up too.
		this.path = SingletonSupplier.ofNullable(() -> readOnlyPath(access, endpoints));
	}

	private static @Nullable String readOnlyPath(ObjectProvider<EndpointAccessResolver> access,
			ObjectProvider<PathMappedEndpoints> endpoints) {
		EndpointId id = EndpointId.of(BackoffEndpoint.ID);
		EndpointAccessResolver resolver = access.getIfAvailable();
		PathMappedEndpoints paths = endpoints.getIfAvailable();
		if (resolver == null || paths == null || resolver.accessFor(id, Access.READ_ONLY) != Access.READ_ONLY) {
			return null;
		}
		return paths.getPath(id);
	}

	/**
	 * @param method the request's method
	 * @param path the request's path within the application
	 * @return whether it is a change of a policy that the read-only endpoint does not map
	 */
	boolean refuses(@Nullable HttpMethod method, String path) {
		if (method != HttpMethod.POST && method != HttpMethod.DELETE) {
			return false;
		}
		String endpoint = this.path.get();
		if (endpoint == null || !path.startsWith(endpoint + "/")) {
			return false;
		}
		String policy = path.substring(endpoint.length() + 1);
		return !policy.isEmpty() && policy.indexOf('/') < 0;
	}

	/**
	 * @param path the request's path
	 * @return the answer's JSON body, shaped as Spring Boot's error answers are
	 */
	static String body(String path) {
		return "{\"status\":405,\"error\":\"Method Not Allowed\",\"message\":" + quoted(MESSAGE) + ",\"path\":"
				+ quoted(path) + "}";
	}

	private static String quoted(String text) {
		StringBuilder json = new StringBuilder("\"");
		text.chars().forEach((c) -> {
			if (c == '"' || c == '\\') {
				json.append('\\').append((char) c);
			}
			else if (c < 0x20) {
				json.append(String.format("\\u%04x", c));
			}
			else {
				json.append((char) c);
			}
		});
		return json.append('"').toString();
	}

}
