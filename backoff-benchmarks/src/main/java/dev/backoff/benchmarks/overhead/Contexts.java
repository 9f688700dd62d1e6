package dev.backoff.benchmarks.overhead;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Supplier;

import dev.backoff.Sleeper;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import dev.backoff.autoconfigure.observation.BackoffObservationAutoConfiguration;
import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeExecutor;
import dev.failsafe.RetryPolicy;
import io.github.resilience4j.common.retry.configuration.CommonRetryConfigurationProperties.InstanceProperties;
import io.github.resilience4j.common.retry.configuration.RetryConfigCustomizer;
import io.github.resilience4j.core.ContextAwareScheduledThreadPoolExecutor;
import io.github.resilience4j.micrometer.tagged.TaggedRetryMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedRetryMetricsPublisher;
import io.github.resilience4j.micrometer.tagged.TaggedTimeLimiterMetrics;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.RetryRegistry;
import io.github.resilience4j.retry.internal.RetryImpl;
import io.github.resilience4j.spring6.fallback.configure.FallbackConfiguration;
import io.github.resilience4j.spring6.retry.configure.RetryConfiguration;
import io.github.resilience4j.spring6.retry.configure.RetryConfigurationProperties;
import io.github.resilience4j.spring6.spelresolver.configure.SpelResolverConfiguration;
import io.github.resilience4j.timelimiter.TimeLimiter;
import io.github.resilience4j.timelimiter.TimeLimiterConfig;
import io.github.resilience4j.timelimiter.TimeLimiterRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.aop.ObservedAspect;
import org.aopalliance.intercept.MethodInterceptor;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.RootClassFilter;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.EnableAspectJAutoProxy;
import org.springframework.context.annotation.Import;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.retry.annotation.EnableRetry;

/**
 * One plain Spring context per library, each holding one benchmarked bean; shared by the JMH
 * benchmarks and their smoke test. Every retrying library gets 3 attempts and free waits where
 * it allows them.
 */
public final class Contexts {

	/** Attempts in all, the first included, for every retrying library. */
	public static final int MAX_ATTEMPTS = 3;

	/**
	 * The attempt timeout of the non-blocking benchmarks, for every library: long enough that
	 * it never fires, so that only its timer's cost is measured.
	 */
	public static final String ATTEMPT_TIMEOUT = "10s";

	/** {@link #ATTEMPT_TIMEOUT} as a {@link Duration}. */
	public static final Duration ATTEMPT_TIMEOUT_DURATION = Duration.ofSeconds(10);

	private Contexts() {
	}

	/** @return a context whose {@link PlainService} is not proxied */
	public static ConfigurableApplicationContext direct() {
		return new AnnotationConfigApplicationContext(PlainConfig.class);
	}

	/** @return a context whose {@link PlainService} is advised by a no-op {@link MethodInterceptor} */
	public static ConfigurableApplicationContext noOpInterceptor() {
		return new AnnotationConfigApplicationContext(NoOpInterceptorConfig.class);
	}

	/** @return a context whose {@link PlainService} is advised by {@link #bareRetry()} */
	public static ConfigurableApplicationContext bareRetryInterceptor() {
		return new AnnotationConfigApplicationContext(BareRetryInterceptorConfig.class);
	}

	/**
	 * @param properties more properties, such as a policy's {@code admission.enabled=true}
	 * @return a Spring Boot context with Backoff's own auto-configuration, metrics on
	 */
	public static ConfigurableApplicationContext backoff(String... properties) {
		return new SpringApplicationBuilder(BackoffConfig.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "spring.main.log-startup-info=false",
					"logging.level.root=warn")
			.properties(properties)
			.run();
	}

	/**
	 * Spring Boot's actuator without a tracer: Micrometer Tracing's auto-configurations are
	 * left out, so that Boot's meter observation handler is the registry's only handler, as in
	 * an application that has {@code spring-boot-starter-actuator} and no tracing bridge.
	 */
	public static final String NO_TRACER = "spring.autoconfigure.exclude="
			+ "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration,"
			+ "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration";

	/**
	 * An application as users run it with {@code spring-boot-starter-actuator}: every
	 * auto-configuration on the class path (Boot's {@code ObservationRegistry} with its meter
	 * observation handler, its meter registry, Backoff's), a {@link BackoffService} and free
	 * waits. The benchmarks' class path has Micrometer Tracing's OpenTelemetry bridge, so the
	 * application traces unless {@link #NO_TRACER} is among the properties.
	 * @param properties more properties, such as {@link #NO_TRACER} or
	 * {@code management.tracing.sampling.probability=1.0}
	 * @return the started application
	 */
	public static ConfigurableApplicationContext backoffActuator(String... properties) {
		return new SpringApplicationBuilder(BackoffActuatorConfig.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "spring.main.log-startup-info=false",
					"logging.level.root=warn")
			.properties(properties)
			.run();
	}

	/**
	 * The controls of {@link #backoffActuator}: the same application (every auto-configuration
	 * on the class path, Backoff's included, no tracer) whose {@link PlainService} is advised by
	 * a hand-written interceptor instead. Spring Boot's start-up runs many proxies and lambdas
	 * through the same Spring AOP call sites as the benchmark, so their type profiles, and what
	 * the JIT makes of them, differ from a bare context's; the control pays that as
	 * {@code @Backoff} does, so that the ratio shows what Backoff adds.
	 * @param bareRetry the {@link #bareRetry()} interceptor, or a no-op one
	 * @return the started application
	 */
	public static ConfigurableApplicationContext actuatorControl(boolean bareRetry) {
		return new SpringApplicationBuilder(bareRetry ? BareRetryActuatorConfig.class : NoOpActuatorConfig.class)
			.web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "spring.main.log-startup-info=false", "logging.level.root=warn",
					NO_TRACER)
			.run();
	}

	/**
	 * @param registry the application's observation registry
	 * @param properties more properties, such as {@code backoff.observations.enabled=false}
	 * @return {@link #backoff()} with an {@link ObservationRegistry} bean and Backoff's
	 * observation auto-configuration
	 */
	public static ConfigurableApplicationContext backoffObserved(ObservationRegistry registry, String... properties) {
		return new SpringApplicationBuilder(BackoffObservedConfig.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "spring.main.log-startup-info=false",
					"logging.level.root=warn")
			.properties(properties)
			.initializers((context) -> context.getBeanFactory().registerSingleton("observationRegistry", registry))
			.run();
	}

	/**
	 * @param registry the observation registry
	 * @return a context whose {@link ObservedService} is advised by Micrometer's {@link ObservedAspect}
	 */
	public static ConfigurableApplicationContext observed(ObservationRegistry registry) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getBeanFactory().registerSingleton("observationRegistry", registry);
		context.register(ObservedConfig.class);
		context.refresh();
		return context;
	}

	/**
	 * @return a registry whose one handler accepts every observation and does nothing with it,
	 * so that observations are really made (a registry without handler makes none)
	 */
	public static ObservationRegistry noOpHandlerRegistry() {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler((context) -> true);
		return registry;
	}

	/**
	 * @return {@link #backoff()} for the non-blocking methods of {@link AsyncBackoffService}:
	 * Backoff's scheduler times the {@code CompletableFuture} attempts, Reactor's parallel
	 * scheduler the {@code Mono} ones
	 */
	public static ConfigurableApplicationContext backoffAsync() {
		return new SpringApplicationBuilder(BackoffAsyncConfig.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "spring.main.log-startup-info=false",
					"logging.level.root=warn")
			.run();
	}

	/**
	 * @return {@link #backoffAsync()} with a scheduler of the application's own, a one-thread
	 * {@link ScheduledThreadPoolExecutor} that removes cancelled tasks, instead of Backoff's
	 * {@code BackoffScheduler}: without the latter, a {@code Mono} call has no close signal to
	 * wait on, and registers nothing on it
	 */
	public static ConfigurableApplicationContext backoffAsyncOwnScheduler() {
		return new SpringApplicationBuilder(BackoffAsyncOwnSchedulerConfig.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "spring.main.log-startup-info=false",
					"logging.level.root=warn")
			.run();
	}

	/** @return a context with Spring Framework 7's {@code @EnableResilientMethods} and {@link AsyncFrameworkRetryService} */
	public static ConfigurableApplicationContext frameworkRetryAsync() {
		return new AnnotationConfigApplicationContext(FrameworkRetryAsyncConfig.class);
	}

	/**
	 * @return a context with the unproxied {@link AsyncPlainService} and Resilience4j's
	 * {@link Resilience4jAsync} decorations of its methods, metrics on
	 */
	public static ConfigurableApplicationContext resilience4jAsync() {
		return new AnnotationConfigApplicationContext(Resilience4jAsyncConfig.class);
	}

	/** @return a context with Spring Framework 7's {@code @EnableResilientMethods} */
	public static ConfigurableApplicationContext frameworkRetry() {
		return new AnnotationConfigApplicationContext(FrameworkRetryConfig.class);
	}

	/** @return a context with Spring Retry's {@code @EnableRetry} and a no-op sleeper */
	public static ConfigurableApplicationContext springRetry() {
		return new AnnotationConfigApplicationContext(SpringRetryConfig.class);
	}

	/** @return a context with Resilience4j's retry aspect and its Micrometer publisher */
	public static ConfigurableApplicationContext resilience4j() {
		// Resilience4j's only way to make the wait free is its global, static sleep function.
		RetryImpl.setSleepFunction((millis) -> {
		});
		return new AnnotationConfigApplicationContext(Resilience4jConfig.class);
	}

	/**
	 * @return Failsafe's executor: programmatic, with its default delay, zero
	 * ({@code withDelay(Duration.ZERO)} is rejected: "delay must be greater than 0")
	 */
	public static FailsafeExecutor<Object> failsafe() {
		RetryPolicy<Object> policy = RetryPolicy.builder()
			.handle(RuntimeException.class)
			.withMaxAttempts(MAX_ATTEMPTS)
			.build();
		return Failsafe.with(policy);
	}

	/**
	 * The floor of any proxy-based retry: loops over fresh clones of the invocation, no
	 * policy, no waits, no metrics.
	 * @return the interceptor
	 */
	public static MethodInterceptor bareRetry() {
		return (invocation) -> {
			ProxyMethodInvocation proxyInvocation = (ProxyMethodInvocation) invocation;
			for (int attempt = 1;; attempt++) {
				try {
					return proxyInvocation.invocableClone().proceed();
				}
				catch (RuntimeException ex) {
					if (attempt >= MAX_ATTEMPTS) {
						throw ex;
					}
				}
			}
		};
	}

	@Configuration(proxyBeanMethods = false)
	static class PlainConfig {

		@Bean
		PlainService plainService() {
			return new PlainService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NoOpInterceptorConfig extends PlainConfig {

		@Bean
		static AdvisingPostProcessor advisingPostProcessor() {
			return new AdvisingPostProcessor((invocation) -> invocation.proceed());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BareRetryInterceptorConfig extends PlainConfig {

		@Bean
		static AdvisingPostProcessor advisingPostProcessor() {
			return new AdvisingPostProcessor(bareRetry());
		}

	}

	/** Advises {@link PlainService} the way Backoff and Spring Framework register their advisors. */
	static final class AdvisingPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

		private static final long serialVersionUID = 1L;

		AdvisingPostProcessor(MethodInterceptor interceptor) {
			this.advisor = new DefaultPointcutAdvisor(new ComposablePointcut(new RootClassFilter(PlainService.class)),
					interceptor);
			setBeforeExistingAdvisors(true);
		}

	}

	/** The benchmarked bean and free waits, in every Backoff context. */
	@Configuration(proxyBeanMethods = false)
	static class BackoffServiceConfig {

		@Bean
		Sleeper noOpSleeper() {
			return (delay) -> {
			};
		}

		@Bean
		BackoffService backoffService() {
			return new BackoffService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class })
	@Import(BackoffServiceConfig.class)
	static class BackoffConfig {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(BackoffObservationAutoConfiguration.class)
	@Import(BackoffConfig.class)
	static class BackoffObservedConfig {

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(BackoffServiceConfig.class)
	static class BackoffActuatorConfig {

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(NoOpInterceptorConfig.class)
	static class NoOpActuatorConfig {

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(BareRetryInterceptorConfig.class)
	static class BareRetryActuatorConfig {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAspectJAutoProxy
	static class ObservedConfig {

		@Bean
		ObservedAspect observedAspect(ObservationRegistry registry) {
			return new ObservedAspect(registry);
		}

		@Bean
		ObservedService observedService() {
			return new ObservedService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class })
	static class BackoffAsyncConfig {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		Sleeper noOpSleeper() {
			return (delay) -> {
			};
		}

		@Bean
		Pending pending() {
			return new Pending();
		}

		@Bean
		AsyncBackoffService asyncBackoffService(Pending pending) {
			return new AsyncBackoffService(pending);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Import(BackoffAsyncConfig.class)
	static class BackoffAsyncOwnSchedulerConfig {

		@Bean(name = BackoffAutoConfiguration.SCHEDULER_BEAN_NAME, destroyMethod = "shutdownNow",
				defaultCandidate = false)
		ScheduledThreadPoolExecutor backoffScheduler() {
			ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
			scheduler.setRemoveOnCancelPolicy(true);
			return scheduler;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableResilientMethods
	static class FrameworkRetryAsyncConfig {

		@Bean
		Pending pending() {
			return new Pending();
		}

		@Bean
		AsyncFrameworkRetryService asyncFrameworkRetryService(Pending pending) {
			return new AsyncFrameworkRetryService(pending);
		}

	}

	/**
	 * Resilience4j's decorations of {@link AsyncPlainService}, as a user writes them: a
	 * {@code Retry} of 3 attempts with a zero interval around the supplier, alone
	 * ({@code retry*}) and around a {@code TimeLimiter} of {@value #ATTEMPT_TIMEOUT} that
	 * cancels the running future ({@code timed*}), so that each attempt is bounded. Both from
	 * registries bound to a meter registry ({@code TaggedRetryMetrics},
	 * {@code TaggedTimeLimiterMetrics}); the timers and retries run on a one-thread
	 * {@link ScheduledThreadPoolExecutor} that removes cancelled tasks, as Backoff's does (a
	 * default {@code Executors.newSingleThreadScheduledExecutor()} would keep every cancelled
	 * timer queued until its deadline).
	 * @param retryAtOnce the retried {@link AsyncPlainService#futureAtOnce()}
	 * @param retryLater the retried {@link AsyncPlainService#futureLater()}
	 * @param timedAtOnce the retried and time-limited {@link AsyncPlainService#futureAtOnce()}
	 * @param timedLater the retried and time-limited {@link AsyncPlainService#futureLater()}
	 */
	public record Resilience4jAsync(Supplier<CompletionStage<String>> retryAtOnce,
			Supplier<CompletionStage<String>> retryLater, Supplier<CompletionStage<String>> timedAtOnce,
			Supplier<CompletionStage<String>> timedLater) {

		static Resilience4jAsync of(AsyncPlainService service, Retry retry, TimeLimiter timeLimiter,
				ScheduledExecutorService scheduler) {
			Supplier<CompletionStage<String>> timedAtOnce = TimeLimiter.decorateCompletionStage(timeLimiter,
					scheduler, service::futureAtOnce);
			Supplier<CompletionStage<String>> timedLater = TimeLimiter.decorateCompletionStage(timeLimiter, scheduler,
					service::futureLater);
			return new Resilience4jAsync(Retry.decorateCompletionStage(retry, scheduler, service::futureAtOnce),
					Retry.decorateCompletionStage(retry, scheduler, service::futureLater),
					Retry.decorateCompletionStage(retry, scheduler, timedAtOnce),
					Retry.decorateCompletionStage(retry, scheduler, timedLater));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Resilience4jAsyncConfig {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		RetryRegistry retryRegistry(MeterRegistry meterRegistry) {
			RetryConfig config = RetryConfig.custom()
				.maxAttempts(MAX_ATTEMPTS)
				.retryExceptions(RuntimeException.class)
				.intervalFunction((attempt) -> 0L)
				.build();
			RetryRegistry registry = RetryRegistry.of(config);
			TaggedRetryMetrics.ofRetryRegistry(registry).bindTo(meterRegistry);
			return registry;
		}

		@Bean
		TimeLimiterRegistry timeLimiterRegistry(MeterRegistry meterRegistry) {
			TimeLimiterConfig config = TimeLimiterConfig.custom()
				.timeoutDuration(ATTEMPT_TIMEOUT_DURATION)
				.cancelRunningFuture(true)
				.build();
			TimeLimiterRegistry registry = TimeLimiterRegistry.of(config);
			TaggedTimeLimiterMetrics.ofTimeLimiterRegistry(registry).bindTo(meterRegistry);
			return registry;
		}

		@Bean(destroyMethod = "shutdownNow")
		ScheduledThreadPoolExecutor resilience4jScheduler() {
			ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
			scheduler.setRemoveOnCancelPolicy(true);
			return scheduler;
		}

		@Bean
		Pending pending() {
			return new Pending();
		}

		@Bean
		AsyncPlainService asyncPlainService(Pending pending) {
			return new AsyncPlainService(pending);
		}

		@Bean
		Resilience4jAsync resilience4jAsync(AsyncPlainService service, RetryRegistry retries,
				TimeLimiterRegistry timeLimiters, ScheduledThreadPoolExecutor resilience4jScheduler) {
			return Resilience4jAsync.of(service, retries.retry(Resilience4jService.NAME),
					timeLimiters.timeLimiter(Resilience4jService.NAME), resilience4jScheduler);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableResilientMethods
	static class FrameworkRetryConfig {

		@Bean
		FrameworkRetryService frameworkRetryService() {
			return new FrameworkRetryService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableRetry
	static class SpringRetryConfig {

		@Bean
		org.springframework.retry.backoff.Sleeper noOpSleeper() {
			return (millis) -> {
			};
		}

		@Bean
		SpringRetryService springRetryService() {
			return new SpringRetryService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAspectJAutoProxy
	@Import({ RetryConfiguration.class, FallbackConfiguration.class, SpelResolverConfiguration.class })
	static class Resilience4jConfig {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		RetryConfigurationProperties retryConfigurationProperties() {
			RetryConfigurationProperties properties = new RetryConfigurationProperties();
			InstanceProperties instance = new InstanceProperties();
			instance.setMaxAttempts(MAX_ATTEMPTS);
			instance.setRetryExceptions(List.of(RuntimeException.class).toArray(new Class[0]));
			properties.getInstances().put(Resilience4jService.NAME, instance);
			return properties;
		}

		@Bean
		RetryConfigCustomizer zeroInterval() {
			// IntervalFunction.of(0) is rejected ("at least 1 ms"); a lambda interval is not.
			return RetryConfigCustomizer.of(Resilience4jService.NAME, (builder) -> builder.intervalFunction((attempt) -> 0L));
		}

		@Bean
		TaggedRetryMetricsPublisher retryMetricsPublisher(MeterRegistry registry) {
			return new TaggedRetryMetricsPublisher(registry);
		}

		@Bean(destroyMethod = "shutdownNow")
		ContextAwareScheduledThreadPoolExecutor contextAwareScheduledThreadPoolExecutor() {
			return ContextAwareScheduledThreadPoolExecutor.newScheduledThreadPool().corePoolSize(1).build();
		}

		@Bean
		Resilience4jService resilience4jService() {
			return new Resilience4jService();
		}

	}

}
