package dev.backoff.benchmarks.overhead;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import dev.failsafe.FailsafeExecutor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import reactor.core.publisher.Mono;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * The cost of one call of a simple bean method under each library: {@code success} succeeds at
 * once, {@code oneFailure} fails once (a fresh exception) and then succeeds, waits made free
 * where the library allows it. Each library lives in its own context, created only for the
 * benchmarks that use it. {@code backoffActuator} is {@code @Backoff} as users run it, in a
 * Spring Boot application with the actuator (no tracer), and {@code noOpInterceptorActuator}
 * and {@code bareRetryInterceptorActuator} its controls in the same application;
 * {@code backoffActuatorTracing} adds Micrometer Tracing's OpenTelemetry bridge at two
 * sampling probabilities.
 *
 * <p>The {@code async} benchmarks (issue 32) measure a per-attempt timeout on non-blocking
 * methods that succeed at the first attempt: {@code @Backoff} on a {@code CompletableFuture}
 * and a {@code Mono} method, Spring Framework 7's reactive {@code @Retryable} on a {@code Mono}
 * with {@code Mono.timeout} inside, and Resilience4j's {@code Retry} around a
 * {@code TimeLimiter} on a {@code CompletableFuture} supplier, each with and without its
 * timeout ({@value Contexts#ATTEMPT_TIMEOUT}, never firing). {@code asyncAtOnce}: the method's
 * result is already complete; {@code asyncLater}: the benchmark completes it once the call has
 * started ({@link Pending}), so that a timer is scheduled and cancelled. Each call's result is
 * joined on the benchmark thread.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CallOverheadBenchmark {

	/** A context and its one benchmarked bean. */
	public abstract static class ContextState<T> {

		ConfigurableApplicationContext context;

		T service;

		abstract ConfigurableApplicationContext create();

		abstract Class<T> type();

		@Setup
		public void start() {
			this.context = create();
			this.service = this.context.getBean(type());
		}

		@TearDown
		public void stop() {
			this.context.close();
		}

	}

	@State(Scope.Benchmark)
	public static class Direct extends ContextState<PlainService> {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.direct();
		}

		@Override
		Class<PlainService> type() {
			return PlainService.class;
		}

	}

	@State(Scope.Benchmark)
	public static class NoOpInterceptor extends Direct {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.noOpInterceptor();
		}

	}

	@State(Scope.Benchmark)
	public static class BareRetryInterceptor extends Direct {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.bareRetryInterceptor();
		}

	}

	/** {@link NoOpInterceptor} in {@link BackoffActuator}'s application: its control. */
	@State(Scope.Benchmark)
	public static class NoOpInterceptorActuator extends Direct {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.actuatorControl(false);
		}

	}

	/** {@link BareRetryInterceptor} in {@link BackoffActuator}'s application: its control. */
	@State(Scope.Benchmark)
	public static class BareRetryInterceptorActuator extends Direct {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.actuatorControl(true);
		}

	}

	@State(Scope.Benchmark)
	public static class Backoff extends ContextState<BackoffService> {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.backoff();
		}

		@Override
		Class<BackoffService> type() {
			return BackoffService.class;
		}

	}

	/**
	 * {@code @Backoff} with the overload controls on ({@code backoff.defaults.admission.enabled}
	 * and {@code pacing.enabled}): what admission's count of every attempt and accept, and a pace
	 * asked before every attempt, cost. The pace stays dormant (nothing throttles here) and
	 * admission's {@code max-rejection} is 0 (its last second would otherwise see a failure
	 * without an accept and reject the retry now and then), so every call runs as
	 * {@link Backoff}'s do.
	 */
	@State(Scope.Benchmark)
	public static class BackoffControls extends Backoff {

		@Override
		ConfigurableApplicationContext create() {
			// Admission counts every attempt but never rejects (max-rejection 0): the one-failure path
			// stays one failure and one success, its cost the bookkeeping's, as a healthy dependency's is.
			return Contexts.backoff("backoff.defaults.admission.enabled=true",
					"backoff.defaults.admission.max-rejection=0", "backoff.defaults.pacing.enabled=true");
		}

	}

	/**
	 * {@code @Backoff} in an application with Spring Boot's actuator and no tracer (the
	 * default the quick start leads to): Boot's observation registry with its meter handler.
	 */
	@State(Scope.Benchmark)
	public static class BackoffActuator extends Backoff {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.backoffActuator(Contexts.NO_TRACER);
		}

	}

	/**
	 * {@code @Backoff} with the actuator and Micrometer Tracing's OpenTelemetry bridge (no
	 * exporter), sampling every trace or one in ten.
	 */
	@State(Scope.Benchmark)
	public static class BackoffActuatorTracing extends Backoff {

		@Param({ "1.0", "0.1" })
		public String sampling;

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.backoffActuator("management.tracing.sampling.probability=" + this.sampling);
		}

	}

	@State(Scope.Benchmark)
	public static class FrameworkRetry extends ContextState<FrameworkRetryService> {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.frameworkRetry();
		}

		@Override
		Class<FrameworkRetryService> type() {
			return FrameworkRetryService.class;
		}

	}

	@State(Scope.Benchmark)
	public static class SpringRetry extends ContextState<SpringRetryService> {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.springRetry();
		}

		@Override
		Class<SpringRetryService> type() {
			return SpringRetryService.class;
		}

	}

	@State(Scope.Benchmark)
	public static class Resilience4j extends ContextState<Resilience4jService> {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.resilience4j();
		}

		@Override
		Class<Resilience4jService> type() {
			return Resilience4jService.class;
		}

	}

	/** A context of non-blocking methods: its bean and the {@link Pending} attempt of its {@code later} methods. */
	public abstract static class AsyncState<T> extends ContextState<T> {

		Pending pending;

		@Override
		public void start() {
			super.start();
			this.pending = this.context.getBean(Pending.class);
		}

	}

	@State(Scope.Benchmark)
	public static class AsyncDirect extends AsyncState<AsyncPlainService> {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.resilience4jAsync();
		}

		@Override
		Class<AsyncPlainService> type() {
			return AsyncPlainService.class;
		}

	}

	@State(Scope.Benchmark)
	public static class BackoffAsync extends AsyncState<AsyncBackoffService> {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.backoffAsync();
		}

		@Override
		Class<AsyncBackoffService> type() {
			return AsyncBackoffService.class;
		}

	}

	/**
	 * {@link BackoffAsync} with a plain scheduler of the application's own in place of
	 * {@code BackoffScheduler}: the {@code Mono} path without the close signal that each call
	 * registers on Backoff's scheduler (see the README's issue 32 section).
	 */
	@State(Scope.Benchmark)
	public static class BackoffAsyncOwnScheduler extends BackoffAsync {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.backoffAsyncOwnScheduler();
		}

	}

	@State(Scope.Benchmark)
	public static class FrameworkRetryAsync extends AsyncState<AsyncFrameworkRetryService> {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.frameworkRetryAsync();
		}

		@Override
		Class<AsyncFrameworkRetryService> type() {
			return AsyncFrameworkRetryService.class;
		}

	}

	@State(Scope.Benchmark)
	public static class Resilience4jAsync extends AsyncDirect {

		Contexts.Resilience4jAsync decorated;

		@Override
		public void start() {
			super.start();
			this.decorated = this.context.getBean(Contexts.Resilience4jAsync.class);
		}

	}

	@State(Scope.Benchmark)
	public static class Failsafe extends Direct {

		FailsafeExecutor<Object> executor;

		@Setup
		public void executor() {
			this.executor = Contexts.failsafe();
		}

	}

	@Benchmark
	public String success_0_direct(Direct state) {
		return state.service.ok();
	}

	@Benchmark
	public String success_1_noOpInterceptor(NoOpInterceptor state) {
		return state.service.ok();
	}

	@Benchmark
	public String success_1_noOpInterceptorActuator(NoOpInterceptorActuator state) {
		return state.service.ok();
	}

	@Benchmark
	public String success_2_bareRetryInterceptor(BareRetryInterceptor state) {
		return state.service.ok();
	}

	@Benchmark
	public String success_3_backoff(Backoff state) {
		return state.service.ok();
	}

	@Benchmark
	public String success_3_backoffControls(BackoffControls state) {
		return state.service.ok();
	}

	@Benchmark
	public String success_3_backoffActuator(BackoffActuator state) {
		return state.service.ok();
	}

	@Benchmark
	public String success_3_backoffActuatorTracing(BackoffActuatorTracing state) {
		return state.service.ok();
	}

	@Benchmark
	public String success_4_frameworkRetryable(FrameworkRetry state) {
		return state.service.ok();
	}

	@Benchmark
	public String success_5_springRetry(SpringRetry state) {
		return state.service.ok();
	}

	@Benchmark
	public String success_6_resilience4j(Resilience4j state) {
		return state.service.ok();
	}

	@Benchmark
	public Object success_7_failsafe(Failsafe state) {
		PlainService service = state.service;
		return state.executor.get(service::ok);
	}

	/** A hand-written try/catch loop around the unproxied bean: the floor of any retry. */
	@Benchmark
	public String oneFailure_0_tryCatchLoop(Direct state) {
		for (int attempt = 1;; attempt++) {
			try {
				return state.service.flaky();
			}
			catch (RuntimeException ex) {
				if (attempt >= Contexts.MAX_ATTEMPTS) {
					throw ex;
				}
			}
		}
	}

	@Benchmark
	public String oneFailure_2_bareRetryInterceptor(BareRetryInterceptor state) {
		return state.service.flaky();
	}

	@Benchmark
	public String oneFailure_2_bareRetryInterceptorActuator(BareRetryInterceptorActuator state) {
		return state.service.flaky();
	}

	@Benchmark
	public String oneFailure_3_backoff(Backoff state) {
		return state.service.flaky();
	}

	@Benchmark
	public String oneFailure_3_backoffControls(BackoffControls state) {
		return state.service.flaky();
	}

	@Benchmark
	public String oneFailure_3_backoffActuator(BackoffActuator state) {
		return state.service.flaky();
	}

	@Benchmark
	public String oneFailure_3_backoffActuatorTracing(BackoffActuatorTracing state) {
		return state.service.flaky();
	}

	@Benchmark
	public String oneFailure_4_frameworkRetryable(FrameworkRetry state) {
		return state.service.flaky();
	}

	@Benchmark
	public String oneFailure_5_springRetry(SpringRetry state) {
		return state.service.flaky();
	}

	@Benchmark
	public String oneFailure_6_resilience4j(Resilience4j state) {
		return state.service.flaky();
	}

	@Benchmark
	public Object oneFailure_7_failsafe(Failsafe state) {
		PlainService service = state.service;
		return state.executor.get(service::flaky);
	}

	@Benchmark
	public String asyncAtOnce_0_directFuture(AsyncDirect state) {
		return state.service.futureAtOnce().join();
	}

	@Benchmark
	public String asyncAtOnce_3_backoffFuture(BackoffAsync state) {
		return state.service.futureAtOnce().join();
	}

	@Benchmark
	public String asyncAtOnce_3_backoffFutureTimeout(BackoffAsync state) {
		return state.service.futureAtOnceTimed().join();
	}

	@Benchmark
	public String asyncAtOnce_3_backoffMono(BackoffAsync state) {
		return state.service.monoAtOnce().block();
	}

	@Benchmark
	public String asyncAtOnce_3_backoffMonoTimeout(BackoffAsync state) {
		return state.service.monoAtOnceTimed().block();
	}

	@Benchmark
	public String asyncAtOnce_3_backoffMonoOwnScheduler(BackoffAsyncOwnScheduler state) {
		return state.service.monoAtOnce().block();
	}

	@Benchmark
	public String asyncAtOnce_3_backoffMonoOwnSchedulerTimeout(BackoffAsyncOwnScheduler state) {
		return state.service.monoAtOnceTimed().block();
	}

	@Benchmark
	public String asyncAtOnce_4_frameworkMono(FrameworkRetryAsync state) {
		return state.service.monoAtOnce().block();
	}

	@Benchmark
	public String asyncAtOnce_4_frameworkMonoTimeout(FrameworkRetryAsync state) {
		return state.service.monoAtOnceTimed().block();
	}

	@Benchmark
	public String asyncAtOnce_6_resilience4jFuture(Resilience4jAsync state) {
		return join(state.decorated.retryAtOnce().get());
	}

	@Benchmark
	public String asyncAtOnce_6_resilience4jFutureTimeLimiter(Resilience4jAsync state) {
		return join(state.decorated.timedAtOnce().get());
	}

	@Benchmark
	public String asyncLater_0_directFuture(AsyncDirect state) {
		return completeLater(state.service.futureLater(), state.pending);
	}

	@Benchmark
	public String asyncLater_3_backoffFuture(BackoffAsync state) {
		return completeLater(state.service.futureLater(), state.pending);
	}

	@Benchmark
	public String asyncLater_3_backoffFutureTimeout(BackoffAsync state) {
		return completeLater(state.service.futureLaterTimed(), state.pending);
	}

	@Benchmark
	public String asyncLater_3_backoffMono(BackoffAsync state) {
		return completeLater(state.service.monoLater(), state.pending);
	}

	@Benchmark
	public String asyncLater_3_backoffMonoTimeout(BackoffAsync state) {
		return completeLater(state.service.monoLaterTimed(), state.pending);
	}

	@Benchmark
	public String asyncLater_3_backoffMonoOwnScheduler(BackoffAsyncOwnScheduler state) {
		return completeLater(state.service.monoLater(), state.pending);
	}

	@Benchmark
	public String asyncLater_3_backoffMonoOwnSchedulerTimeout(BackoffAsyncOwnScheduler state) {
		return completeLater(state.service.monoLaterTimed(), state.pending);
	}

	@Benchmark
	public String asyncLater_4_frameworkMono(FrameworkRetryAsync state) {
		return completeLater(state.service.monoLater(), state.pending);
	}

	@Benchmark
	public String asyncLater_4_frameworkMonoTimeout(FrameworkRetryAsync state) {
		return completeLater(state.service.monoLaterTimed(), state.pending);
	}

	@Benchmark
	public String asyncLater_6_resilience4jFuture(Resilience4jAsync state) {
		return completeLater(state.decorated.retryLater().get(), state.pending);
	}

	@Benchmark
	public String asyncLater_6_resilience4jFutureTimeLimiter(Resilience4jAsync state) {
		return completeLater(state.decorated.timedLater().get(), state.pending);
	}

	private static String join(CompletionStage<String> call) {
		return call.toCompletableFuture().join();
	}

	/** Completes the call's pending attempt on this thread, then takes the call's result. */
	private static String completeLater(CompletionStage<String> call, Pending pending) {
		pending.complete();
		return join(call);
	}

	/** Subscribes to the call (which starts its attempt), completes the attempt, then takes the result. */
	private static String completeLater(Mono<String> call, Pending pending) {
		CompletableFuture<String> result = call.toFuture();
		pending.complete();
		return result.join();
	}

	/**
	 * What Spring Framework 7 and Failsafe pay for a zero wait: neither lets the sleep be
	 * replaced, and both call {@code Thread.sleep(0)}, which yields the processor.
	 */
	@Benchmark
	public void threadSleepZero() throws InterruptedException {
		Thread.sleep(0);
	}

}
