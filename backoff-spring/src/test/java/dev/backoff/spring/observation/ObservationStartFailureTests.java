package dev.backoff.spring.observation;

import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.Sleeper;
import dev.backoff.spring.EnabledBackoff;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A handler that throws as {@code backoff.call} starts, after a meter handler has started its
 * samples: the call is not observed, its result is the method's, and no sample stays open.
 */
class ObservationStartFailureTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withPropertyValues("backoff.observations.enabled=true")
		.withBean(Sleeper.class, () -> Sleeper.INSTANT)
		.withBean(SimpleMeterRegistry.class)
		.withBean(ObservationRegistry.class, ObservationRegistry::create)
		.withBean(Service.class);

	@Test
	void aHandlerThatThrowsAsTheCallStartsLeavesNoMeterSampleOpen() {
		this.runner.run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			context.getBean(ObservationRegistry.class)
				.observationConfig()
				.observationHandler(new DefaultMeterObservationHandler(meters))
				.observationHandler(new ThrowsOnCallStart());
			Service service = context.getBean(Service.class);
			for (int i = 0; i < 10; i++) {
				assertThat(service.call()).isEqualTo("ok");
			}
			LongTaskTimer active = meters.find("backoff.call.active").longTaskTimer();
			assertThat(active).isNotNull();
			assertThat(active.activeTasks()).isZero();
		});
	}

	static class ThrowsOnCallStart implements ObservationHandler<Observation.Context> {

		@Override
		public void onStart(Observation.Context context) {
			throw new IllegalStateException("handler failed on start of " + context.getName());
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof BackoffObservationContext;
		}

	}

	static class Service {

		private final AtomicInteger calls = new AtomicInteger();

		@Backoff
		public String call() {
			this.calls.incrementAndGet();
			return "ok";
		}

	}

}
