package dev.backoff.autoconfigure;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.NanoClock;
import dev.backoff.RandomSource;
import dev.backoff.Sleeper;
import dev.backoff.autoconfigure.web.HttpFailures;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.util.ClassUtils;

/**
 * Auto-configuration of {@code @Backoff}: the policies from {@code backoff.*}, the executor
 * with its replaceable sleeper, clock and random source, the scheduler of non-blocking
 * retries, and the post-processor that advises {@code @Backoff} beans with proxies. With
 * spring-web present, policies without {@code retry-on} classify HTTP failures by status and
 * honour their {@code Retry-After} (see {@link HttpFailures}). With
 * {@code backoff.mode=aspectj} no proxy is created: the AspectJ-woven {@link BackoffAspect}
 * retries the calls instead (see {@link BackoffAspectAutoConfiguration}). Off with
 * {@code backoff.enabled=false}: then no proxy is created and calls go straight through.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "backoff.enabled", matchIfMissing = true)
@EnableConfigurationProperties(BackoffProperties.class)
public final class BackoffAutoConfiguration {

	/** The name of the scheduler of non-blocking retries; define a bean of that name to replace it. */
	public static final String SCHEDULER_BEAN_NAME = "backoffScheduler";

	private static final String HTTP_RESPONSE_EXCEPTION = "org.springframework.web.client.RestClientResponseException";

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnProperty(name = "backoff.mode", havingValue = "proxy", matchIfMissing = true)
	static BackoffAnnotationBeanPostProcessor backoffAnnotationBeanPostProcessor(
			ObjectProvider<BackoffOperations> operations) {
		return new BackoffAnnotationBeanPostProcessor(operations::getObject);
	}

	@Bean
	@ConditionalOnMissingBean
	Sleeper backoffSleeper() {
		return Sleeper.THREAD;
	}

	@Bean
	@ConditionalOnMissingBean
	NanoClock backoffClock() {
		return NanoClock.SYSTEM;
	}

	@Bean
	@ConditionalOnMissingBean
	RandomSource backoffRandomSource() {
		return RandomSource.THREAD_LOCAL;
	}

	// Not a default candidate: an Executor bean would make Spring Boot's own task executor and
	// scheduler back off, and @Scheduled methods would run on the retry threads.
	@Bean(name = SCHEDULER_BEAN_NAME, defaultCandidate = false)
	@ConditionalOnMissingBean(name = SCHEDULER_BEAN_NAME)
	BackoffScheduler backoffScheduler() {
		return new BackoffScheduler(Math.max(2, Runtime.getRuntime().availableProcessors()));
	}

	@Bean
	@ConditionalOnMissingBean
	BackoffPolicies backoffPolicies(BackoffProperties properties, ConfigurableBeanFactory beanFactory,
			ObjectProvider<Clock> clock) {
		ClassLoader classLoader = beanFactory.getBeanClassLoader();
		// With spring-web present, HTTP failures are classified by status and their Retry-After
		// is honoured; HttpFailures is only loaded then.
		BackoffPolicy base = ClassUtils.isPresent(HTTP_RESPONSE_EXCEPTION, classLoader)
				? HttpFailures.defaults(clock.getIfUnique(Clock::systemUTC)) : BackoffPolicy.defaults();
		return BackoffPolicies.of(properties, classLoader, base);
	}

	@Bean
	@ConditionalOnMissingBean
	BackoffLogging backoffLogging() {
		return new BackoffLogging();
	}

	@Bean
	@ConditionalOnMissingBean
	BackoffExecutor backoffExecutor(Sleeper sleeper, NanoClock clock, RandomSource randomSource,
			BackoffProperties properties) {
		return BackoffExecutor.builder()
			.sleeper(sleeper)
			.clock(clock)
			.randomSource(randomSource)
			.nested(properties.getNested())
			.build();
	}

	@Bean
	@ConditionalOnMissingBean
	BackoffOperations backoffOperations(BackoffPolicies policies, BackoffExecutor executor,
			@Qualifier(SCHEDULER_BEAN_NAME) ScheduledExecutorService scheduler,
			ObjectProvider<BackoffListener> listeners, ObjectProvider<BackoffListenerFactory> listenerFactories,
			ConfigurableBeanFactory beanFactory) {
		List<BackoffListener> shared = listeners.orderedStream().toList();
		List<BackoffListenerFactory> factories = listenerFactories.orderedStream().toList();
		return new BackoffOperations(policies, executor, scheduler, (operation) -> {
			List<BackoffListener> all = new ArrayList<>(shared);
			factories.forEach((factory) -> all.add(factory.create(operation)));
			return BackoffListener.composite(all);
		}, beanFactory::resolveEmbeddedValue, beanFactory.getBeanClassLoader());
	}

}
