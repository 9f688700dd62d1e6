package dev.backoff.autoconfigure.observation;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.BackoffListener;
import dev.backoff.Jitter;
import dev.backoff.Outcome;
import dev.backoff.Sleeper;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import dev.backoff.spring.observation.BackoffAttemptObservationContext;
import dev.backoff.spring.observation.BackoffAttemptObservationConvention;
import dev.backoff.spring.observation.BackoffObservationContext;
import dev.backoff.spring.observation.BackoffObservationConvention;
import dev.backoff.spring.observation.BackoffObservations;
import dev.backoff.spring.observation.DefaultBackoffAttemptObservationConvention;
import dev.backoff.spring.observation.DefaultBackoffObservationConvention;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static dev.backoff.autoconfigure.observation.BackoffObservationTests.keys;
import static dev.backoff.autoconfigure.observation.BackoffObservationTests.names;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link BackoffObservationAutoConfiguration}: when observations are made, how to
 * turn them off, how to replace their convention, that a failing observation handler never
 * changes a call's result, and what Spring Boot's own meter observation handler makes of them
 * beside the {@code backoff.*} meters.
 */
class BackoffObservationAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class,
				BackoffObservationAutoConfiguration.class))
		.withBean(Sleeper.class, () -> Sleeper.INSTANT)
		.withBean(Service.class);

	/** Spring Boot's actuator without a tracer: its registry and its meter observation handler. */
	private static final AutoConfigurations ACTUATOR = AutoConfigurations.of(ObservationAutoConfiguration.class,
			MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
			CompositeMeterRegistryAutoConfiguration.class, BackoffMetricsAutoConfiguration.class);

	/** Observations forced on: most tests here add their handlers to the registry by hand. */
	private final ApplicationContextRunner observedRunner = this.contextRunner
		.withPropertyValues("backoff.observations.enabled=true");

	@Test
	void observesNothingWithoutAnObservationRegistry() {
		this.contextRunner.run((context) -> {
			assertThat(context).doesNotHaveBean(BackoffObservations.class);
			assertThat(context.getBean(Service.class).call(2)).isEqualTo("ok 3");
		});
	}

	@Test
	void observesNothingWhenObservationsAreOff() {
		this.contextRunner.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
			.withPropertyValues("backoff.observations.enabled=false")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(BackoffObservations.class);
				assertThat(context.getBean(Service.class).call(2)).isEqualTo("ok 3");
				TestObservationRegistryAssert.assertThat(context.getBean(TestObservationRegistry.class))
					.doesNotHaveAnyObservation();
			});
	}

	@Test
	void backsOffWhenBackoffIsDisabled() {
		this.contextRunner.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
			.withPropertyValues("backoff.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(BackoffObservations.class));
	}

	@Test
	void conventionBeansReplaceTheDefaultKeys() {
		this.observedRunner.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
			.withBean(BackoffObservationConvention.class, TeamCallConvention::new)
			.withBean(BackoffAttemptObservationConvention.class, TeamAttemptConvention::new)
			.run((context) -> {
				List<Observation.Context> stopped = record(context.getBean(TestObservationRegistry.class));
				assertThat(context.getBean(Service.class).call(1)).isEqualTo("ok 2");
				assertThat(names(stopped)).containsExactly("backoff.attempt", "backoff.attempt", "backoff.call");
				assertThat(keys(stopped.get(2).getLowCardinalityKeyValues())).containsEntry("team", "quotes")
					.containsEntry("backoff.outcome", "success_after_retry");
				assertThat(keys(stopped.get(0).getLowCardinalityKeyValues())).containsEntry("team", "quotes")
					.containsEntry("backoff.attempt.outcome", "retried");
			});
	}

	@Test
	void aHandlerThatThrowsChangesNoResultAndNoListenerEvent() {
		this.observedRunner.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
			.withBean(RecordingListener.class)
			.run((context) -> {
				TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
				registry.observationConfig().observationHandler(new FailingHandler());
				Service service = context.getBean(Service.class);
				assertThat(service.call(2)).isEqualTo("ok 3");
				assertThat(service.mono(2).block(Duration.ofSeconds(10))).isEqualTo("ok 3");
				assertThat(context.getBean(RecordingListener.class).events()).containsExactly("retry 1", "retry 2",
						"success_after_retry after 3", "retry 1", "retry 2", "success_after_retry after 3");
				// Nor does it leave an attempt current on the caller's thread.
				assertThat(registry.getCurrentObservation()).isNull();
			});
	}

	@Test
	void aNoopRegistryLeavesCallsUnobserved() {
		this.observedRunner.withBean(io.micrometer.observation.ObservationRegistry.class,
				io.micrometer.observation.ObservationRegistry::create)
			.run((context) -> {
				assertThat(context).hasSingleBean(BackoffObservations.class);
				assertThat(context.getBean(Service.class).call(2)).isEqualTo("ok 3");
			});
	}

	/**
	 * With Spring Boot's actuator and no tracer, the only handler is Boot's meter handler:
	 * observing would only add timers beside the {@code backoff.*} meters, at about 40 times
	 * the cost of a call that succeeds at once. Calls are not observed, and the registry holds
	 * the {@code backoff.*} meters alone.
	 */
	@Test
	void bootsMeterObservationHandlerAloneLeavesCallsUnobserved() {
		this.contextRunner.withConfiguration(ACTUATOR).run((context) -> {
			assertThat(context).doesNotHaveBean(BackoffObservations.class);
			assertThat(context.getBean(Service.class).call(2)).isEqualTo("ok 3");
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.getMeters()).extracting((meter) -> meter.getId().getName())
				.filteredOn((name) -> name.startsWith("backoff"))
				.containsOnly("backoff.calls", "backoff.retries", "backoff.delay", "backoff.delay.ceiling", "backoff.attempts",
						"backoff.max.delay");
			assertThat(meters.get("backoff.calls").tag("outcome", "success_after_retry").counter().count())
				.isEqualTo(1);
		});
	}

	/** A handler that is not a meter handler (a tracer's, or the application's own) turns them on. */
	@Test
	void anObservationHandlerBeanOtherThanAMeterHandlerTurnsObservationsOn() {
		List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
		this.contextRunner.withConfiguration(ACTUATOR)
			.withBean("recorder", ObservationHandler.class, () -> new BackoffObservationTests.Recorder(stopped))
			.run((context) -> {
				assertThat(context).hasSingleBean(BackoffObservations.class);
				assertThat(context.getBean(Service.class).call(1)).isEqualTo("ok 2");
				assertThat(names(stopped)).containsExactly("backoff.attempt", "backoff.attempt", "backoff.call");
			});
	}

	@Test
	void observationsOffWinOverAHandlerBean() {
		this.contextRunner.withConfiguration(ACTUATOR)
			.withBean("recorder", ObservationHandler.class,
					() -> new BackoffObservationTests.Recorder(new CopyOnWriteArrayList<>()))
			.withPropertyValues("backoff.observations.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(BackoffObservations.class));
	}

	@Test
	void aValueOtherThanTrueOrFalseStopsStartUp() {
		this.contextRunner.withConfiguration(ACTUATOR)
			.withPropertyValues("backoff.observations.enabled=yes")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("backoff.observations.enabled")
				.hasMessageContaining("'yes'")
				.hasMessageContaining("must be true or false"));
	}

	/**
	 * Forced on with Boot's meter handler alone, {@code DefaultMeterObservationHandler} turns
	 * every observation into a timer and a long-task timer of its name: {@code backoff.call}
	 * and {@code backoff.attempt} beside the {@code backoff.*} meters, with names of their own
	 * (no name is shared, so no registry sees two meters of one name with different tags) and
	 * the observations' low-cardinality keys as tags. The {@code backoff.*} meters count each
	 * call once.
	 */
	@Test
	void forcedOnBootsMeterObservationHandlerAddsTimersOfTheirOwnBesideTheBackoffMeters() {
		this.observedRunner.withConfiguration(ACTUATOR)
			.run((context) -> {
				assertThat(context).hasSingleBean(BackoffObservations.class);
				assertThat(context.getBean(Service.class).call(2)).isEqualTo("ok 3");
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				Map<String, String> backoffMeters = new TreeMap<>();
				for (Meter meter : meters.getMeters()) {
					String name = meter.getId().getName();
					if (name.startsWith("backoff")) {
						backoffMeters.merge(name + " " + meter.getId().getType(),
								String.join(",", meter.getId().getTags().stream().map(Tag::getKey).toList()),
								(a, b) -> a.equals(b) ? a : a + " | " + b);
					}
				}
				assertThat(backoffMeters).containsExactlyEntriesOf(new TreeMap<>(Map.of(
						"backoff.attempt TIMER", "backoff.attempt.outcome,backoff.method,backoff.policy,error,exception",
						"backoff.attempt.active LONG_TASK_TIMER", "backoff.method,backoff.policy",
						"backoff.attempts DISTRIBUTION_SUMMARY", "method,outcome,policy",
						"backoff.call TIMER", "backoff.method,backoff.outcome,backoff.policy,error",
						"backoff.call.active LONG_TASK_TIMER", "backoff.method,backoff.policy",
						"backoff.calls COUNTER", "method,outcome,policy",
						"backoff.delay TIMER", "method,policy",
						"backoff.delay.ceiling GAUGE", "method,policy",
						"backoff.max.delay GAUGE", "policy",
						"backoff.retries COUNTER", "exception,method,policy")));
				assertThat(meters.get("backoff.calls").tag("outcome", "success_after_retry").counter().count())
				.isEqualTo(1);
				assertThat(meters.get("backoff.call").timer().count()).isEqualTo(1);
				assertThat(meters.get("backoff.call").timer().getId().getTag("error")).isEqualTo("none");
				assertThat(meters.get("backoff.attempt").tag("backoff.attempt.outcome", "retried").timer().count())
					.isEqualTo(2);
				assertThat(meters.get("backoff.attempt").tag("backoff.attempt.outcome", "success").timer().count())
					.isEqualTo(1);
				assertThat(meters.get("backoff.retries").counter().count()).isEqualTo(2);
				// One name for the failure in both.
				assertThat(meters.get("backoff.retries").tag("exception", "IOException").counter().count())
					.isEqualTo(2);
				assertThat(meters.get("backoff.attempt").tag("exception", "IOException").timer().count()).isEqualTo(2);
			});
	}

	/**
	 * A call that gave up is an error in its observation, as Spring's own observations mark
	 * theirs: Boot's meter handler tags its timer with the failure's class (a tracer marks the
	 * span failed), for {@code exhausted} and {@code budget_exhausted} alike.
	 */
	@Test
	void aCallThatGaveUpCarriesItsFailureInTheObservationAsSpringsDo() {
		this.observedRunner.withConfiguration(ACTUATOR)
			.withPropertyValues("backoff.defaults.max-attempts=2", "backoff.defaults.budget.enabled=true",
					"backoff.defaults.budget.max-tokens=3")
			.run((context) -> {
				Service service = context.getBean(Service.class);
				assertThatExceptionOfType(IOException.class).isThrownBy(() -> service.call(100));
				assertThatExceptionOfType(IOException.class).isThrownBy(() -> service.call(100));
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("backoff.calls").tag("outcome", "exhausted").counter().count()).isOne();
				assertThat(meters.get("backoff.calls").tag("outcome", "budget_exhausted").counter().count()).isOne();
				for (String outcome : new String[] { "exhausted", "budget_exhausted" }) {
					assertThat(meters.get("backoff.call").tag("backoff.outcome", outcome).timer().getId().getTag("error"))
						.as(outcome)
						.isEqualTo("IOException");
				}
			});
	}

	@Test
	void bootsObservationPropertyTurnsBothObservationsOffByTheirPrefix() {
		this.observedRunner.withConfiguration(ACTUATOR)
			.withPropertyValues("management.observations.enable.backoff=false")
			.run((context) -> {
				assertThat(context.getBean(Service.class).call(2)).isEqualTo("ok 3");
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.find("backoff.call").meters()).isEmpty();
				assertThat(meters.find("backoff.attempt").meters()).isEmpty();
				assertThat(meters.get("backoff.calls").tag("outcome", "success_after_retry").counter().count())
				.isEqualTo(1);
			});
	}

	private static List<Observation.Context> record(TestObservationRegistry registry) {
		List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
		registry.observationConfig().observationHandler(new BackoffObservationTests.Recorder(stopped));
		return stopped;
	}

	static class TeamCallConvention extends DefaultBackoffObservationConvention {

		@Override
		public KeyValues getLowCardinalityKeyValues(BackoffObservationContext context) {
			return super.getLowCardinalityKeyValues(context).and("team", "quotes");
		}

	}

	static class TeamAttemptConvention extends DefaultBackoffAttemptObservationConvention {

		@Override
		public KeyValues getLowCardinalityKeyValues(BackoffAttemptObservationContext context) {
			return super.getLowCardinalityKeyValues(context).and("team", "quotes");
		}

	}

	/**
	 * Throws at every step it can without stopping the observations outright: on the start of
	 * each call's second attempt, on every scope opened and on every stop.
	 */
	static class FailingHandler implements ObservationHandler<Observation.Context> {

		@Override
		public void onStart(Observation.Context context) {
			if (context instanceof BackoffAttemptObservationContext attempt && attempt.getAttempt() == 2) {
				throw new IllegalStateException("handler failed on start of attempt 2");
			}
		}

		@Override
		public void onScopeOpened(Observation.Context context) {
			throw new IllegalStateException("handler failed on scope of " + context.getName());
		}

		@Override
		public void onStop(Observation.Context context) {
			throw new IllegalStateException("handler failed on stop of " + context.getName());
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof BackoffObservationContext || context instanceof BackoffAttemptObservationContext;
		}

	}

	static class RecordingListener implements BackoffListener {

		private final List<String> events = new CopyOnWriteArrayList<>();

		@Override
		public void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
			this.events.add("retry " + attempt);
		}

		@Override
		public void onSuccess(Outcome outcome, int attempts) {
			this.events.add(outcome.tagValue() + " after " + attempts);
		}

		@Override
		public void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
			this.events.add(outcome.tagValue() + " after " + attempts);
		}

		List<String> events() {
			return this.events;
		}

	}

	static class Service {

		private final AtomicInteger attempts = new AtomicInteger();

		@Backoff(baseDelay = "100ms", jitter = Jitter.NONE, retryOn = IOException.class)
		public String call(int failures) throws IOException {
			int attempt = this.attempts.incrementAndGet();
			if (attempt <= failures) {
				throw new IOException("failure " + attempt);
			}
			this.attempts.set(0);
			return "ok " + attempt;
		}

		@Backoff(baseDelay = "100ms", jitter = Jitter.NONE, retryOn = IOException.class)
		public Mono<String> mono(int failures) {
			return Mono.fromCallable(() -> call(failures));
		}

	}

}
