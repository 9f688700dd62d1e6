package dev.backoff.autoconfigure.actuate;

import java.util.Set;
import java.util.TreeSet;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameter;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;

/**
 * Refuses a change to the {@code backoff} endpoint whose body names a key that is no
 * setting, such as {@code maxAtempts} beside {@code maxAttempts}: Actuator hands an operation
 * only the keys it has parameters for, so without this a typo would be silently ignored. The
 * whole body is refused, naming the key, and nothing changes.
 */
final class UnknownSettingsAdvisor implements OperationInvokerAdvisor {

	@Override
	public OperationInvoker apply(EndpointId endpointId, OperationType operationType, OperationParameters parameters,
			OperationInvoker invoker) {
		if (!BackoffEndpoint.ID.equals(endpointId.toString()) || operationType != OperationType.WRITE) {
			return invoker;
		}
		Set<String> known = new TreeSet<>();
		for (OperationParameter parameter : parameters) {
			known.add(parameter.getName());
		}
		return (context) -> {
			Set<String> unknown = new TreeSet<>(context.getArguments().keySet());
			unknown.removeAll(known);
			if (!unknown.isEmpty()) {
				return BackoffEndpoint.unknownSettings(String.valueOf(context.getArguments().get("policy")), unknown);
			}
			return invoker.invoke(context);
		};
	}

}
