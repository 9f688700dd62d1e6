package dev.backoff.aspectj;

import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.spring.operation.BackoffOperationSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of the AspectJ-woven {@link BackoffAspect}: with
 * {@code backoff.mode=aspectj} it binds the aspect to this context's operations instead of
 * proxying beans (and fails start-up if AspectJ or the weaving is missing); otherwise, if the
 * aspect happens to be woven, it binds it to let calls through once, so that nothing is
 * retried twice and {@code backoff.enabled=false} still means calls go straight through.
 */
@AutoConfiguration(after = BackoffAutoConfiguration.class)
public final class BackoffAspectAutoConfiguration {

	/** The name of the {@link BackoffAspectConfigurer} bean, in either mode. */
	public static final String CONFIGURER_BEAN_NAME = "backoffAspectConfigurer";

	@Bean(name = CONFIGURER_BEAN_NAME)
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnBooleanProperty(name = "backoff.enabled", matchIfMissing = true)
	@ConditionalOnProperty(name = "backoff.mode", havingValue = "aspectj")
	static BackoffAspectConfigurer backoffAspectConfigurer(ObjectProvider<BackoffOperationSource> operations) {
		return BackoffAspectConfigurer.retrying(operations::getObject);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.aspectj.lang.Aspects")
	@Conditional(NotWeavingCondition.class)
	static class PassThroughConfiguration {

		@Bean(name = CONFIGURER_BEAN_NAME)
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static BackoffAspectConfigurer backoffAspectPassThroughConfigurer(Environment environment) {
			boolean enabled = environment.getProperty("backoff.enabled", Boolean.class, true);
			return BackoffAspectConfigurer.passingThrough(enabled);
		}

	}

	/** Matches unless Backoff is enabled in {@code aspectj} mode. */
	static final class NotWeavingCondition extends NoneNestedConditions {

		NotWeavingCondition() {
			super(ConfigurationPhase.PARSE_CONFIGURATION);
		}

		@ConditionalOnBooleanProperty(name = "backoff.enabled", matchIfMissing = true)
		@ConditionalOnProperty(name = "backoff.mode", havingValue = "aspectj")
		static final class AspectJMode {

		}

	}

}
