package dev.backoff.benchmarks.overhead;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.backoff.spring.observation.BackoffObservations;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Proves the harness of {@link ObservationOverheadBenchmark}: each variant observes what it
 * claims to, and every benchmark method returns the expected value.
 */
class ObservationOverheadBenchmarkTests {

	private final ObservationOverheadBenchmark benchmark = new ObservationOverheadBenchmark();

	@Test
	void withoutRegistryOrWithObservationsOffNothingObserves() {
		ObservationOverheadBenchmark.NoRegistry none = new ObservationOverheadBenchmark.NoRegistry();
		ObservationOverheadBenchmark.ObservationsOff off = new ObservationOverheadBenchmark.ObservationsOff();
		none.start();
		off.start();
		try {
			assertThat(none.context.getBeanProvider(BackoffObservations.class).getIfAvailable()).isNull();
			assertThat(off.context.getBeanProvider(BackoffObservations.class).getIfAvailable()).isNull();
			assertThat(off.context.getBean(ObservationRegistry.class).isNoop()).isFalse();
			assertThat(this.benchmark.success_0_backoffNoRegistry(none)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.oneFailure_0_backoffNoRegistry(none)).isEqualTo(Flaky.RESULT);
			assertThat(this.benchmark.success_1_backoffObservationsOff(off)).isEqualTo(Flaky.RESULT);
		}
		finally {
			none.stop();
			off.stop();
		}
	}

	@Test
	void aRegistryWithoutHandlerIsANoOp() {
		ObservationOverheadBenchmark.NoHandler state = new ObservationOverheadBenchmark.NoHandler();
		state.start();
		try {
			assertThat(state.context.getBean(BackoffObservations.class).getRegistry().isNoop()).isTrue();
			assertThat(this.benchmark.success_2_backoffNoHandler(state)).isEqualTo(Flaky.RESULT);
		}
		finally {
			state.stop();
		}
	}

	@Test
	void withAHandlerEveryCallAndAttemptIsObserved() {
		ObservationOverheadBenchmark.NoOpHandler state = new ObservationOverheadBenchmark.NoOpHandler();
		state.start();
		try {
			List<String> started = record(state.context.getBean(ObservationRegistry.class));
			assertThat(this.benchmark.success_4_backoffNoOpHandler(state)).isEqualTo(Flaky.RESULT);
			assertThat(started).containsExactly("backoff.call", "backoff.attempt");
			started.clear();
			assertThat(this.benchmark.oneFailure_4_backoffNoOpHandler(state)).isEqualTo(Flaky.RESULT);
			assertThat(started).containsExactly("backoff.call", "backoff.attempt", "backoff.attempt");
		}
		finally {
			state.stop();
		}
	}

	@Test
	void observedMethodIsAdvisedByObservedAspect() {
		ObservationOverheadBenchmark.ObservedNoOpHandler state = new ObservationOverheadBenchmark.ObservedNoOpHandler();
		ObservationOverheadBenchmark.ObservedNoHandler noHandler = new ObservationOverheadBenchmark.ObservedNoHandler();
		state.start();
		noHandler.start();
		try {
			assertThat(AopUtils.isAopProxy(state.service)).isTrue();
			List<String> started = record(state.context.getBean(ObservationRegistry.class));
			assertThat(this.benchmark.success_5_observedNoOpHandler(state)).isEqualTo(Flaky.RESULT);
			assertThat(started).containsExactly("benchmark.observed");
			assertThat(AopUtils.isAopProxy(noHandler.service)).isTrue();
			assertThat(this.benchmark.success_3_observedNoHandler(noHandler)).isEqualTo(Flaky.RESULT);
		}
		finally {
			state.stop();
			noHandler.stop();
		}
	}

	private static List<String> record(ObservationRegistry registry) {
		List<String> started = new CopyOnWriteArrayList<>();
		registry.observationConfig().observationHandler(new ObservationHandler<Observation.Context>() {

			@Override
			public void onStart(Observation.Context context) {
				started.add(context.getName());
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
		return started;
	}

}
