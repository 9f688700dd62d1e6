package dev.backoff.autoconfigure;

import java.time.Clock;
import java.util.concurrent.ScheduledExecutorService;

import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.NanoClock;
import dev.backoff.RandomSource;
import dev.backoff.Sleeper;
import dev.backoff.spring.BackoffConfiguration;
import dev.backoff.spring.aop.BackoffAnnotationBeanPostProcessor;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.BackoffPolicyCustomizer;
import dev.backoff.spring.http.BackoffHttp;
import dev.backoff.spring.http.ClientChainCheck;
import dev.backoff.spring.http.ReactiveBackoffHttp;
import dev.backoff.spring.operation.BackoffListenerFactory;
import dev.backoff.spring.operation.BackoffLogging;
import dev.backoff.spring.operation.BackoffOperationSource;
import dev.backoff.spring.operation.BackoffScheduler;
import dev.backoff.spring.operation.CallObserver;
import dev.backoff.spring.retry.BackoffRetries;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of {@code @Backoff}: the policies from {@code backoff.*}, the executor
 * with its replaceable sleeper, clock and random source, the scheduler of non-blocking
 * retries, and the post-processor that advises {@code @Backoff} beans with proxies. With
 * spring-web present, policies without {@code retry-on} classify HTTP failures by status and
 * honour their {@code Retry-After} (see {@link HttpFailures}). With
 * {@code backoff.mode=aspectj} no proxy is created: the AspectJ-woven aspect of
 * {@code backoff-aspectj} retries the calls instead. Off with {@code backoff.enabled=false}:
 * then no proxy is created and calls go straight through.
 */
@AutoConfiguration
@Conditional(OnBackoffEnabledCondition.class)
@EnableConfigurationProperties(BackoffProperties.class)
public final class BackoffAutoConfiguration {

	/** The name of the scheduler of non-blocking retries; define a bean of that name to replace it. */
	public static final String SCHEDULER_BEAN_NAME = BackoffConfiguration.SCHEDULER_BEAN_NAME;

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnProperty(name = "backoff.mode", havingValue = "proxy", matchIfMissing = true)
	static BackoffAnnotationBeanPostProcessor backoffAnnotationBeanPostProcessor(
			ObjectProvider<BackoffOperationSource> source) {
		return new BackoffAnnotationBeanPostProcessor(source::getObject);
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
	BackoffScheduler backoffScheduler(BackoffProperties properties, Environment environment) {
		return BackoffScheduler.create(properties.getScheduler(), Threading.VIRTUAL.isActive(environment));
	}

	@Bean
	@ConditionalOnMissingBean
	BackoffPolicies backoffPolicies(BackoffProperties properties, ConfigurableBeanFactory beanFactory,
			ObjectProvider<Clock> clock, ObjectProvider<BackoffPolicyCustomizer> customizers, Environment environment,
			ObjectProvider<NanoClock> nanoClock, ObjectProvider<RandomSource> randomSource) {
		BackoffPropertiesCheck.check(environment);
		// The executor's clock and random source (BackoffConfiguration.backoffExecutor): admission and pacing count in them.
		return BackoffPolicies.of(properties, beanFactory.getBeanClassLoader(),
				BackoffConfiguration.basePolicy(beanFactory.getBeanClassLoader(), clock), beanFactory,
				customizers.orderedStream().toList(), nanoClock.getIfUnique(() -> NanoClock.SYSTEM),
				randomSource.getIfUnique(() -> RandomSource.THREAD_LOCAL));
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
	BackoffOperationSource backoffOperationSource(BackoffPolicies policies, BackoffExecutor executor,
			@Qualifier(SCHEDULER_BEAN_NAME) ScheduledExecutorService scheduler,
			ObjectProvider<BackoffListener> listeners, ObjectProvider<BackoffListenerFactory> listenerFactories,
			ObjectProvider<CallObserver> observer, ConfigurableBeanFactory beanFactory) {
		return BackoffOperationSource.create(policies, executor, scheduler, listeners.orderedStream().toList(),
				listenerFactories.orderedStream().toList(), new EmbeddedValueResolver(beanFactory), observer.getIfUnique());
	}

	@Bean
	@ConditionalOnMissingBean
	BackoffRetries backoffRetries(BackoffOperationSource operations) {
		return new BackoffRetries(operations);
	}

	/**
	 * With Spring Cloud Context present, {@code backoff.*} is bound anew when its
	 * {@code EnvironmentChangeEvent} says the environment changed.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = BackoffRefreshListener.EVENT)
	static class RefreshConfiguration {

		@Bean
		@ConditionalOnMissingBean
		BackoffRefreshListener backoffRefreshListener(Environment environment, BackoffOperationSource operations) {
			return new BackoffRefreshListener(environment, operations);
		}

	}

	/**
	 * {@code backoff.mode=aspectj} without backoff-aspectj would retry nothing: stop start-up
	 * instead.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(name = "backoff.mode", havingValue = "aspectj")
	@ConditionalOnMissingClass("dev.backoff.aspectj.BackoffAspect")
	static class MissingAspectConfiguration {

		MissingAspectConfiguration() {
			throw new BackoffConfigurationException("backoff.mode", "aspectj",
					"needs dev.backoff:backoff-aspectj on the class path, and it is missing",
					"Add the dependency dev.backoff:backoff-aspectj and weave with AspectJ; or set backoff.mode=proxy.");
		}

	}

	/**
	 * With spring-web present, the HTTP clients' beans (and policies without {@code retry-on}
	 * classify HTTP failures by status: {@link BackoffConfiguration#basePolicy}).
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.web.client.RestClientResponseException")
	static class HttpPoliciesConfiguration {

		@Bean
		@ConditionalOnMissingBean
		BackoffHttp backoffHttp(BackoffOperationSource operations) {
			return new BackoffHttp(operations);
		}

		@Bean
		@ConditionalOnMissingBean
		ClientChainCheck backoffClientChainCheck() {
			return new ClientChainCheck();
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnClass(name = "org.springframework.web.reactive.function.client.ExchangeFilterFunction")
		ReactiveBackoffHttp reactiveBackoffHttp(BackoffHttp http) {
			return new ReactiveBackoffHttp(http);
		}

	}

}
