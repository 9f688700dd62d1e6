package dev.backoff.benchmarks.overhead;

import java.util.concurrent.TimeUnit;

import io.micrometer.observation.ObservationRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * What observations add to a {@code @Backoff} call (metrics on in every variant), beside a
 * no-op {@code @Observed} method under the same registry: without an
 * {@link ObservationRegistry}; with one but {@code backoff.observations.enabled=false}; with
 * one that has no handler (Micrometer's no-op); and with one whose only handler does nothing,
 * so that every observation is made, started, scoped and stopped (the registry's handlers are
 * not beans, so observations are switched on by {@code backoff.observations.enabled=true}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ObservationOverheadBenchmark {

	@State(Scope.Benchmark)
	public static class NoRegistry extends CallOverheadBenchmark.Backoff {

	}

	@State(Scope.Benchmark)
	public static class ObservationsOff extends CallOverheadBenchmark.Backoff {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.backoffObserved(Contexts.noOpHandlerRegistry(), "backoff.observations.enabled=false");
		}

	}

	@State(Scope.Benchmark)
	public static class NoHandler extends CallOverheadBenchmark.Backoff {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.backoffObserved(ObservationRegistry.create(), "backoff.observations.enabled=true");
		}

	}

	@State(Scope.Benchmark)
	public static class NoOpHandler extends CallOverheadBenchmark.Backoff {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.backoffObserved(Contexts.noOpHandlerRegistry(), "backoff.observations.enabled=true");
		}

	}

	@State(Scope.Benchmark)
	public static class ObservedNoHandler extends CallOverheadBenchmark.ContextState<ObservedService> {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.observed(ObservationRegistry.create());
		}

		@Override
		Class<ObservedService> type() {
			return ObservedService.class;
		}

	}

	@State(Scope.Benchmark)
	public static class ObservedNoOpHandler extends ObservedNoHandler {

		@Override
		ConfigurableApplicationContext create() {
			return Contexts.observed(Contexts.noOpHandlerRegistry());
		}

	}

	@Benchmark
	public String success_0_backoffNoRegistry(NoRegistry state) {
		return state.service.ok();
	}

	@Benchmark
	public String success_1_backoffObservationsOff(ObservationsOff state) {
		return state.service.ok();
	}

	@Benchmark
	public String success_2_backoffNoHandler(NoHandler state) {
		return state.service.ok();
	}

	@Benchmark
	public String success_3_observedNoHandler(ObservedNoHandler state) {
		return state.service.ok();
	}

	@Benchmark
	public String success_4_backoffNoOpHandler(NoOpHandler state) {
		return state.service.ok();
	}

	@Benchmark
	public String success_5_observedNoOpHandler(ObservedNoOpHandler state) {
		return state.service.ok();
	}

	@Benchmark
	public String oneFailure_0_backoffNoRegistry(NoRegistry state) {
		return state.service.flaky();
	}

	@Benchmark
	public String oneFailure_4_backoffNoOpHandler(NoOpHandler state) {
		return state.service.flaky();
	}

}
