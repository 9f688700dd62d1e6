package dev.backoff.autoconfigure.actuate;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.OperationArgumentResolver;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;

/**
 * Hands a change to the {@code backoff} endpoint its whole request body, as one
 * {@code settings} argument: Actuator gives an operation one argument per parameter, while a
 * change takes any setting of the table ({@code PolicySetting}), so the endpoint names none of
 * them and refuses a key that is no setting (a typo must not be silently ignored).
 */
final class SettingsBodyAdvisor implements OperationInvokerAdvisor {

	private static final String POLICY = "policy";

	private static final String SETTINGS = "settings";

	@Override
	public OperationInvoker apply(EndpointId endpointId, OperationType operationType, OperationParameters parameters,
			OperationInvoker invoker) {
		if (!BackoffEndpoint.ID.equals(endpointId.toString()) || operationType != OperationType.WRITE) {
			return invoker;
		}
		return (context) -> {
			Map<String, Object> body = new LinkedHashMap<>(context.getArguments());
			Object policy = body.remove(POLICY);
			Map<String, @Nullable Object> arguments = new LinkedHashMap<>();
			arguments.put(POLICY, policy);
			arguments.put(SETTINGS, body);
			return invoker.invoke(new InvocationContext(context.resolveArgument(SecurityContext.class), arguments,
					new OperationArgumentResolver() {

						@Override
						public boolean canResolve(Class<?> type) {
							return context.canResolve(type);
						}

						@Override
						public <T> T resolve(Class<T> type) {
							return context.resolveArgument(type);
						}

					}));
		};
	}

}
