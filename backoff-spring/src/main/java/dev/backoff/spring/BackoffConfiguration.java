package dev.backoff.spring;

import java.time.Clock;
import java.util.ArrayList;
import java.util.concurrent.ScheduledExecutorService;

import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.NanoClock;
import dev.backoff.RandomSource;
import dev.backoff.Sleeper;
import dev.backoff.spring.aop.BackoffAnnotationBeanPostProcessor;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.BackoffPolicyCustomizer;
import dev.backoff.spring.config.BackoffSettings;
import dev.backoff.spring.config.SettingsBinder;
import dev.backoff.spring.http.BackoffHttp;
import dev.backoff.spring.http.ClientChainCheck;
import dev.backoff.spring.http.HttpFailures;
import dev.backoff.spring.http.ReactiveBackoffHttp;
import dev.backoff.spring.metrics.BackoffMetrics;
import dev.backoff.spring.metrics.BackoffOverloadMetrics;
import dev.backoff.spring.metrics.BackoffPolicyMetrics;
import dev.backoff.spring.observation.BackoffAttemptObservationConvention;
import dev.backoff.spring.observation.BackoffObservationConvention;
import dev.backoff.spring.observation.BackoffObservations;
import dev.backoff.spring.operation.BackoffListenerFactory;
import dev.backoff.spring.operation.BackoffLogging;
import dev.backoff.spring.operation.BackoffOperationSource;
import dev.backoff.spring.operation.BackoffScheduler;
import dev.backoff.spring.operation.CallObserver;
import dev.backoff.spring.retry.BackoffRetries;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * What {@link EnableBackoff} defines, in an application without Spring Boot (see there). The
 * objects are made by the same factories as Spring Boot's auto-configuration makes them, from
 * settings bound by {@link SettingsBinder}.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(BackoffConditions.Enabled.class)
public class BackoffConfiguration {

	/** The name of the scheduler of non-blocking retries. */
	public static final String SCHEDULER_BEAN_NAME = "backoffScheduler";

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@Conditional(BackoffConditions.ProxyMode.class)
	static BackoffAnnotationBeanPostProcessor backoffAnnotationBeanPostProcessor(
			ObjectProvider<BackoffOperationSource> source) {
		return new BackoffAnnotationBeanPostProcessor(source::getObject);
	}

	@Bean
	BackoffSettings backoffSettings(Environment environment) {
		return SettingsBinder.bind(environment);
	}

	// Not a default candidate: the application's own injection points for an executor must not see it.
	@Bean(name = SCHEDULER_BEAN_NAME, defaultCandidate = false)
	BackoffScheduler backoffScheduler(BackoffSettings settings) {
		return BackoffScheduler.create(settings.getScheduler(), false);
	}

	@Bean
	BackoffPolicies backoffPolicies(BackoffSettings settings, ConfigurableBeanFactory beanFactory,
			ObjectProvider<Clock> clock, ObjectProvider<BackoffPolicyCustomizer> customizers,
			ObjectProvider<NanoClock> nanoClock, ObjectProvider<RandomSource> randomSource) {
		// The executor's clock and random source (backoffExecutor below): admission and pacing count in them.
		return BackoffPolicies.of(settings, beanFactory.getBeanClassLoader(),
				basePolicy(beanFactory.getBeanClassLoader(), clock), beanFactory, customizers.orderedStream().toList(),
				nanoClock.getIfUnique(() -> NanoClock.SYSTEM), randomSource.getIfUnique(() -> RandomSource.THREAD_LOCAL));
	}

	/**
	 * What {@code backoff.defaults} starts from, under Boot as under {@code @EnableBackoff}.
	 * @param classLoader the application's class loader
	 * @param clock the clock that reads an HTTP date in a {@code Retry-After}, if the application has one
	 * @return with spring-web, a policy that classifies HTTP failures by status and honours their
	 * {@code Retry-After} where {@code retry-on} is not set; otherwise {@link BackoffPolicy#defaults()}
	 */
	public static BackoffPolicy basePolicy(@Nullable ClassLoader classLoader, ObjectProvider<Clock> clock) {
		return ClassUtils.isPresent(BackoffConditions.HTTP_FAILURE, classLoader)
				? HttpFailures.defaults(clock.getIfUnique(Clock::systemUTC)) : BackoffPolicy.defaults();
	}

	@Bean
	BackoffExecutor backoffExecutor(BackoffSettings settings, ObjectProvider<Sleeper> sleeper,
			ObjectProvider<NanoClock> clock, ObjectProvider<RandomSource> randomSource) {
		return BackoffExecutor.builder()
			.sleeper(sleeper.getIfUnique(() -> Sleeper.THREAD))
			.clock(clock.getIfUnique(() -> NanoClock.SYSTEM))
			.randomSource(randomSource.getIfUnique(() -> RandomSource.THREAD_LOCAL))
			.nested(settings.getNested())
			.build();
	}

	@Bean
	BackoffLogging backoffLogging() {
		return new BackoffLogging();
	}

	@Bean
	BackoffOperationSource backoffOperationSource(BackoffPolicies policies, BackoffExecutor executor,
			@Qualifier(SCHEDULER_BEAN_NAME) ScheduledExecutorService scheduler,
			ObjectProvider<BackoffListener> listeners, ObjectProvider<BackoffListenerFactory> listenerFactories,
			ObjectProvider<CallObserver> observer, ConfigurableBeanFactory beanFactory) {
		return BackoffOperationSource.create(policies, executor, scheduler, listeners.orderedStream().toList(),
				new ArrayList<>(listenerFactories.orderedStream().toList()), new EmbeddedValueResolver(beanFactory),
				observer.getIfUnique());
	}

	@Bean
	BackoffRetries backoffRetries(BackoffOperationSource operations) {
		return new BackoffRetries(operations);
	}

	/** The {@code backoff.*} meters, in the application's {@code MeterRegistry} if it has one. */
	@Configuration(proxyBeanMethods = false)
	@Conditional(BackoffConditions.Metrics.class)
	static class MetricsConfiguration {

		@Bean
		BackoffListenerFactory backoffMetrics(ObjectProvider<MeterRegistry> registries, BackoffPolicies policies,
				BackoffSettings settings) {
			MeterRegistry registry = registries.getIfUnique();
			if (registry == null) {
				return (operation) -> BackoffListener.NONE;
			}
			// No Spring Boot to bind MeterBinder beans: the budgets' gauge is bound here.
			new BackoffPolicyMetrics(policies).bindTo(registry);
			return new BackoffMetrics(registry, settings.getMetrics().getFailuresAtZero());
		}

		@Bean
		BackoffListenerFactory backoffOverloadMetrics(ObjectProvider<MeterRegistry> registries,
				BackoffPolicies policies) {
			MeterRegistry registry = registries.getIfUnique();
			if (registry == null) {
				return (operation) -> BackoffListener.NONE;
			}
			BackoffOverloadMetrics metrics = new BackoffOverloadMetrics(policies);
			metrics.bindTo(registry);
			return metrics;
		}

	}

	/** Observations, asked for with {@code backoff.observations.enabled=true}. */
	@Configuration(proxyBeanMethods = false)
	@Conditional(BackoffConditions.Observations.class)
	static class ObservationConfiguration {

		@Bean
		BackoffObservations backoffObservations(ObjectProvider<ObservationRegistry> registry,
				ObjectProvider<BackoffObservationConvention> callConvention,
				ObjectProvider<BackoffAttemptObservationConvention> attemptConvention) {
			return new BackoffObservations(registry.getIfUnique(() -> ObservationRegistry.NOOP),
					callConvention.getIfUnique(), attemptConvention.getIfUnique());
		}

	}

	/** With spring-web: the HTTP clients' retry. */
	@Configuration(proxyBeanMethods = false)
	@Conditional(BackoffConditions.Http.class)
	static class HttpConfiguration {

		@Bean
		BackoffHttp backoffHttp(BackoffOperationSource operations) {
			return new BackoffHttp(operations);
		}

		@Bean
		ClientChainCheck backoffClientChainCheck() {
			return new ClientChainCheck();
		}

		@Bean
		@Conditional(BackoffConditions.ReactiveHttp.class)
		ReactiveBackoffHttp reactiveBackoffHttp(BackoffHttp http) {
			return new ReactiveBackoffHttp(http);
		}

	}

}
