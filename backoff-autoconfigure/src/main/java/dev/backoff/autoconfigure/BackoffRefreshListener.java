package dev.backoff.autoconfigure;

import java.util.Map;

import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.operation.BackoffOperationSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.GenericApplicationListener;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;

/**
 * Binds {@code backoff.*} anew from the {@link Environment} when Spring Cloud's
 * {@code EnvironmentChangeEvent} is published (after a {@code /actuator/refresh}, a config
 * server push or a Kubernetes config map change), and puts the policies in place through
 * {@link BackoffOperationSource#rebind}: the same binding, validation and INFO log as at
 * start-up and for a change made through the endpoint. An invalid configuration keeps the
 * policies in force and logs why at WARN. The event is matched by its class name, so that
 * Spring Cloud stays an optional neighbour that nothing here is compiled against.
 */
public class BackoffRefreshListener implements GenericApplicationListener {

	/** Spring Cloud Context's event, published once property sources have changed. */
	public static final String EVENT = "org.springframework.cloud.context.environment.EnvironmentChangeEvent";

	private static final Log logger = LogFactory.getLog(BackoffPolicies.class);

	private final Environment environment;

	private final BackoffOperationSource operations;

	/**
	 * @param environment the environment to bind {@code backoff.*} from
	 * @param operations puts the policies in place
	 */
	public BackoffRefreshListener(Environment environment, BackoffOperationSource operations) {
		this.environment = environment;
		this.operations = operations;
	}

	@Override
	public boolean supportsEventType(ResolvableType eventType) {
		for (Class<?> type = eventType.toClass(); type != null; type = type.getSuperclass()) {
			if (EVENT.equals(type.getName())) {
				return true;
			}
		}
		return false;
	}

	@Override
	public void onApplicationEvent(ApplicationEvent event) {
		refresh();
	}

	/**
	 * Binds {@code backoff.*} anew and puts the policies in place if they are valid.
	 * @return by policy, the settings that now have another value; empty when nothing changed
	 * or the configuration was invalid
	 */
	public Map<String, Map<String, BackoffPolicies.SettingChange>> refresh() {
		try {
			// As at start-up: an unknown key, or a list or fraction where it does not belong, is refused.
			BackoffPropertiesCheck.check(this.environment);
			BackoffProperties properties = Binder.get(this.environment)
				.bindOrCreate("backoff", Bindable.of(BackoffProperties.class));
			return this.operations.rebind(properties);
		}
		catch (BindException ex) {
			String why = (ex.getProperty() != null)
					? BackoffFailureAnalyzer.unbound(ex, ex.getProperty()).getMessage() : ex.getMessage();
			logger.warn("Backoff kept its policies: the refreshed configuration is invalid. " + why);
		}
		catch (BackoffConfigurationException ex) {
			logger.warn("Backoff kept its policies: the refreshed configuration is invalid. " + ex.getMessage());
		}
		return Map.of();
	}

}
