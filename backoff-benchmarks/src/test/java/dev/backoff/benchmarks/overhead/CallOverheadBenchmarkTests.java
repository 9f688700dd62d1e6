package dev.backoff.benchmarks.overhead;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Function;

import dev.backoff.BackoffDelays;
import dev.backoff.BackoffPolicy;
import dev.backoff.Jitter;
import dev.backoff.spring.observation.BackoffObservations;
import dev.backoff.spring.operation.BackoffOperationSource;
import dev.backoff.spring.operation.BackoffScheduler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.TracingObservationHandler;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Proves the harness: every benchmark's context starts, its bean is (or is not) proxied as
 * meant, and every benchmark method returns the expected value once, the one-failure path
 * having made exactly two attempts.
 */
class CallOverheadBenchmarkTests {

	private final CallOverheadBenchmark benchmark = new CallOverheadBenchmark();

	@Test
	void directCallIsNotProxied() {
		CallOverheadBenchmark.Direct state = start(new CallOverheadBenchmark.Direct());
		try {
			assertThat(AopUtils.isAopProxy(state.service)).isFalse();
			assertThat(this.benchmark.success_0_direct(state)).isEqualTo(Flaky.RESULT);
			assertOneFailurePath(state, this.benchmark::oneFailure_0_tryCatchLoop);
		}
		finally {
			state.stop();
		}
	}

	@Test
	void noOpInterceptorProxiesTheBean() {
		CallOverheadBenchmark.NoOpInterceptor state = start(new CallOverheadBenchmark.NoOpInterceptor());
		try {
			assertThat(AopUtils.isAopProxy(state.service)).isTrue();
			assertThat(this.benchmark.success_1_noOpInterceptor(state)).isEqualTo(Flaky.RESULT);
		}
		finally {
			state.stop();
		}
	}

	@Test
	void bareRetryInterceptorRetriesOnce() {
		CallOverheadBenchmark.BareRetryInterceptor state = start(new CallOverheadBenchmark.BareRetryInterceptor());
		try {
			assertThat(AopUtils.isAopProxy(state.service)).isTrue();
			assertThat(this.benchmark.success_2_bareRetryInterceptor(state)).isEqualTo(Flaky.RESULT);
			assertOneFailurePath(state, this.benchmark::oneFailure_2_bareRetryInterceptor);
		}
		finally {
			state.stop();
		}
	}

	/** The controls of the actuator's benchmarks: the same Boot application, its bean advised by hand. */
	@Test
	void theActuatorsControlsAdviseThePlainBeanInTheSameApplication() {
		CallOverheadBenchmark.NoOpInterceptorActuator noOp = start(new CallOverheadBenchmark.NoOpInterceptorActuator());
		try {
			assertThat(AopUtils.isAopProxy(noOp.service)).isTrue();
			assertThat(noOp.context.getBean(ObservationRegistry.class).isNoop()).isFalse();
			assertThat(noOp.context.getBeansOfType(BackoffOperationSource.class)).hasSize(1);
			assertThat(this.benchmark.success_1_noOpInterceptorActuator(noOp)).isEqualTo(Flaky.RESULT);
		}
		finally {
			noOp.stop();
		}
		CallOverheadBenchmark.BareRetryInterceptorActuator bare = start(
				new CallOverheadBenchmark.BareRetryInterceptorActuator());
		try {
			assertThat(AopUtils.isAopProxy(bare.service)).isTrue();
			assertOneFailurePath(bare, this.benchmark::oneFailure_2_bareRetryInterceptorActuator);
		}
		finally {
			bare.stop();
		}
	}

	@Test
	void backoffRetriesOnceWithMetricsOn() {
		CallOverheadBenchmark.Backoff state = start(new CallOverheadBenchmark.Backoff());
		try {
			assertThat(AopUtils.isAopProxy(state.service)).isTrue();
			assertThat(this.benchmark.success_3_backoff(state)).isEqualTo(Flaky.RESULT);
			assertOneFailurePath(state, this.benchmark::oneFailure_3_backoff);
			MeterRegistry registry = state.context.getBean(MeterRegistry.class);
			assertThat(registry.find("backoff.calls").counters()).isNotEmpty();
			assertThat(registry.find("backoff.retries").counter().count()).isEqualTo(2);
		}
		finally {
			state.stop();
		}
	}

	/**
	 * With the actuator and no tracer, Boot's meter handler is the only observation handler:
	 * calls are not observed, and the registry has no {@code backoff.call} timer beside the
	 * {@code backoff.*} meters.
	 */
	@Test
	void backoffWithTheActuatorAndNoTracerIsNotObserved() {
		CallOverheadBenchmark.BackoffActuator state = start(new CallOverheadBenchmark.BackoffActuator());
		try {
			assertThat(state.context.getBeansOfType(TracingObservationHandler.class)).isEmpty();
			assertThat(state.context.getBeansOfType(BackoffObservations.class)).isEmpty();
			assertThat(state.context.getBean(ObservationRegistry.class).isNoop()).isFalse();
			assertThat(this.benchmark.success_3_backoffActuator(state)).isEqualTo(Flaky.RESULT);
			assertOneFailurePath(state, this.benchmark::oneFailure_3_backoffActuator);
			MeterRegistry registry = state.context.getBean(MeterRegistry.class);
			assertThat(registry.find("backoff.retries").counter().count()).isEqualTo(2);
			assertThat(registry.find("backoff.call").meters()).isEmpty();
		}
		finally {
			state.stop();
		}
	}

	@Test
	void backoffWithTheActuatorAndATracerIsObserved() {
		CallOverheadBenchmark.BackoffActuatorTracing state = new CallOverheadBenchmark.BackoffActuatorTracing();
		state.sampling = "1.0";
		start(state);
		try {
			assertThat(state.context.getBean(Tracer.class)).isNotSameAs(Tracer.NOOP);
			assertThat(state.context.getBeansOfType(BackoffObservations.class)).hasSize(1);
			assertThat(this.benchmark.success_3_backoffActuatorTracing(state)).isEqualTo(Flaky.RESULT);
			assertOneFailurePath(state, this.benchmark::oneFailure_3_backoffActuatorTracing);
			MeterRegistry registry = state.context.getBean(MeterRegistry.class);
			assertThat(registry.find("backoff.call").tag("backoff.outcome", "success").timer().count()).isOne();
			assertThat(registry.find("backoff.call").tag("backoff.outcome", "success_after_retry").timer().count())
				.isPositive();
		}
		finally {
			state.stop();
		}
	}

	@Test
	void frameworkRetryableRetriesOnce() {
		CallOverheadBenchmark.FrameworkRetry state = start(new CallOverheadBenchmark.FrameworkRetry());
		try {
			assertThat(AopUtils.isAopProxy(state.service)).isTrue();
			assertThat(this.benchmark.success_4_frameworkRetryable(state)).isEqualTo(Flaky.RESULT);
			assertOneFailurePath(state, this.benchmark::oneFailure_4_frameworkRetryable);
		}
		finally {
			state.stop();
		}
	}

	@Test
	void springRetryRetriesOnce() {
		CallOverheadBenchmark.SpringRetry state = start(new CallOverheadBenchmark.SpringRetry());
		try {
			assertThat(AopUtils.isAopProxy(state.service)).isTrue();
			assertThat(this.benchmark.success_5_springRetry(state)).isEqualTo(Flaky.RESULT);
			assertOneFailurePath(state, this.benchmark::oneFailure_5_springRetry);
		}
		finally {
			state.stop();
		}
	}

	@Test
	void resilience4jRetriesOnceWithMetricsOn() {
		CallOverheadBenchmark.Resilience4j state = start(new CallOverheadBenchmark.Resilience4j());
		try {
			assertThat(AopUtils.isAopProxy(state.service)).isTrue();
			assertThat(this.benchmark.success_6_resilience4j(state)).isEqualTo(Flaky.RESULT);
			assertOneFailurePath(state, this.benchmark::oneFailure_6_resilience4j);
			MeterRegistry registry = state.context.getBean(MeterRegistry.class);
			assertThat(registry.find("resilience4j.retry.calls").meters()).isNotEmpty();
		}
		finally {
			state.stop();
		}
	}

	@Test
	void failsafeRetriesOnce() {
		CallOverheadBenchmark.Failsafe state = start(new CallOverheadBenchmark.Failsafe());
		state.executor();
		try {
			assertThat(this.benchmark.success_7_failsafe(state)).isEqualTo(Flaky.RESULT);
			assertOneFailurePath(state, this.benchmark::oneFailure_7_failsafe);
		}
		finally {
			state.stop();
		}
	}

	@Test
	void asyncDirectCallReturnsTheResult() {
		CallOverheadBenchmark.AsyncDirect state = start(new CallOverheadBenchmark.AsyncDirect());
		try {
			assertThat(AopUtils.isAopProxy(state.service)).isFalse();
			assertThat(this.benchmark.asyncAtOnce_0_directFuture(state)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.asyncLater_0_directFuture(state)).isEqualTo(Flaky.RESULT);
			assertThatIllegalStateException().isThrownBy(state.pending::complete);
		}
		finally {
			state.stop();
		}
	}

	/**
	 * Every async {@code @Backoff} benchmark returns the result and counts one successful call;
	 * only a timed {@code CompletableFuture} attempt that is still pending holds a timer on
	 * Backoff's scheduler, and its completion removes it.
	 */
	@Test
	void backoffAsyncCallsSucceedAndATimedPendingFutureHoldsOneTimer() {
		CallOverheadBenchmark.BackoffAsync state = start(new CallOverheadBenchmark.BackoffAsync());
		try {
			assertThat(AopUtils.isAopProxy(state.service)).isTrue();
			assertThat(this.benchmark.asyncAtOnce_3_backoffFuture(state)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.asyncAtOnce_3_backoffFutureTimeout(state)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.asyncAtOnce_3_backoffMono(state)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.asyncAtOnce_3_backoffMonoTimeout(state)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.asyncLater_3_backoffFuture(state)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.asyncLater_3_backoffFutureTimeout(state)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.asyncLater_3_backoffMono(state)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.asyncLater_3_backoffMonoTimeout(state)).isEqualTo(Flaky.RESULT);
			MeterRegistry registry = state.context.getBean(MeterRegistry.class);
			assertThat(registry.find("backoff.calls").tag("outcome", "success").counters()).hasSize(8)
				.allSatisfy((counter) -> assertThat(counter.count()).isOne());

			ScheduledThreadPoolExecutor scheduler = state.context.getBean(BackoffScheduler.class);
			assertThat(state.service.futureAtOnceTimed().join()).isEqualTo(Flaky.RESULT);
			assertThat(scheduler.getQueue()).isEmpty();
			assertPendingHoldsTimers(state.service.futureLater(), state.pending, scheduler, 0);
			assertPendingHoldsTimers(state.service.futureLaterTimed(), state.pending, scheduler, 1);
		}
		finally {
			state.stop();
		}
	}

	@Test
	void backoffMonoCallsSucceedOnASchedulerOfTheApplicationsOwn() {
		CallOverheadBenchmark.BackoffAsyncOwnScheduler state = start(new CallOverheadBenchmark.BackoffAsyncOwnScheduler());
		try {
			assertThat(state.context.getBeansOfType(BackoffScheduler.class)).isEmpty();
			assertThat(this.benchmark.asyncAtOnce_3_backoffMonoOwnScheduler(state)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.asyncAtOnce_3_backoffMonoOwnSchedulerTimeout(state)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.asyncLater_3_backoffMonoOwnScheduler(state)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.asyncLater_3_backoffMonoOwnSchedulerTimeout(state)).isEqualTo(Flaky.RESULT);
			MeterRegistry registry = state.context.getBean(MeterRegistry.class);
			assertThat(registry.find("backoff.calls").tag("outcome", "success").counters()).hasSize(4)
				.allSatisfy((counter) -> assertThat(counter.count()).isOne());
		}
		finally {
			state.stop();
		}
	}

	@Test
	void frameworkAsyncCallsSucceed() {
		CallOverheadBenchmark.FrameworkRetryAsync state = start(new CallOverheadBenchmark.FrameworkRetryAsync());
		try {
			assertThat(AopUtils.isAopProxy(state.service)).isTrue();
			assertThat(this.benchmark.asyncAtOnce_4_frameworkMono(state)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.asyncAtOnce_4_frameworkMonoTimeout(state)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.asyncLater_4_frameworkMono(state)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.asyncLater_4_frameworkMonoTimeout(state)).isEqualTo(Flaky.RESULT);
		}
		finally {
			state.stop();
		}
	}

	/**
	 * Every Resilience4j async benchmark returns the result; the time limiter holds one timer
	 * per attempt, even for a future already complete, until the attempt ends.
	 */
	@Test
	void resilience4jAsyncCallsSucceedAndTheTimeLimiterHoldsOneTimerPerAttempt() {
		CallOverheadBenchmark.Resilience4jAsync state = start(new CallOverheadBenchmark.Resilience4jAsync());
		try {
			assertThat(this.benchmark.asyncAtOnce_6_resilience4jFuture(state)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.asyncAtOnce_6_resilience4jFutureTimeLimiter(state)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.asyncLater_6_resilience4jFuture(state)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.asyncLater_6_resilience4jFutureTimeLimiter(state)).isEqualTo(Flaky.RESULT);
			ScheduledThreadPoolExecutor scheduler = state.context.getBean(ScheduledThreadPoolExecutor.class);
			assertThat(scheduler.getQueue()).isEmpty();
			assertPendingHoldsTimers(state.decorated.retryLater().get(), state.pending, scheduler, 0);
			assertPendingHoldsTimers(state.decorated.timedLater().get(), state.pending, scheduler, 1);
			MeterRegistry registry = state.context.getBean(MeterRegistry.class);
			assertThat(registry.find("resilience4j.retry.calls").meters()).isNotEmpty();
			assertThat(registry.find("resilience4j.timelimiter.calls").meters()).isNotEmpty();
		}
		finally {
			state.stop();
		}
	}

	/** While the call's attempt is pending the scheduler holds {@code timers}; once completed, none. */
	private static void assertPendingHoldsTimers(CompletionStage<String> call, Pending pending,
			ScheduledThreadPoolExecutor scheduler, int timers) {
		CompletableFuture<String> future = call.toCompletableFuture();
		assertThat(future).isNotDone();
		assertThat(scheduler.getQueue()).hasSize(timers);
		pending.complete();
		assertThat(future.join()).isEqualTo(Flaky.RESULT);
		assertThat(scheduler.getQueue()).isEmpty();
	}

	@Test
	void everyJitterComputesDelaysOnAnUnlimitedSequence() {
		DelayBenchmark delays = new DelayBenchmark();
		for (Jitter jitter : Jitter.values()) {
			for (String ceiling : new String[] { "capped", "growing" }) {
				delays.jitter = jitter;
				delays.ceiling = ceiling;
				delays.setUp();
				for (int i = 0; i < 100; i++) {
					assertThat(delays.nextNanos()).isBetween(0L, BackoffPolicy.MAX_DURATION.toNanos());
				}
			}
		}
		BackoffDelays unlimited = BackoffPolicy.builder().maxAttempts(Integer.MAX_VALUE).build().getSchedule().delays();
		assertThat(unlimited.hasNext()).isTrue();
	}

	private static <S extends CallOverheadBenchmark.ContextState<?>> S start(S state) {
		state.start();
		return state;
	}

	/** Calls the one-failure path twice: each call must return the result after one failed attempt. */
	private static <S> void assertOneFailurePath(S state, Function<S, Object> benchmark) {
		assertThat(benchmark.apply(state)).isEqualTo(Flaky.RESULT);
		assertThat(benchmark.apply(state)).isEqualTo(Flaky.RESULT);
	}

}
