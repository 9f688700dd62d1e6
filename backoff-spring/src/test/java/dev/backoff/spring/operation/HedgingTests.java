package dev.backoff.spring.operation;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.ManualScheduler;
import dev.backoff.spring.BackoffConfiguration;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.metrics.BackoffMetrics;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Hedged requests through Spring: {@code hedge-delay} and {@code max-hedges} on the annotation
 * or the policy send another copy of a {@code CompletableFuture} or {@code Mono} method's call
 * when none has answered within the delay; the first answer wins, the others are cancelled,
 * and {@code backoff.hedges} counts them. A {@link ManualScheduler} holds every hedge timer, so
 * time passes when the test says. A blocking method or a {@code Flux} cannot be hedged.
 */
class HedgingTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class)
		.withPropertyValues("backoff.defaults.jitter=none", "backoff.defaults.base-delay=100ms",
				"backoff.policies.reads.max-attempts=3", "backoff.policies.remote.max-attempts=2");

	@Test
	void aCompletableFutureMethodSendsACopyAfterTheDelayAndTheFirstAnswerWins() {
		ManualScheduler scheduler = new ManualScheduler();
		this.contextRunner.withBean(Reads.class).withAllowBeanDefinitionOverriding(true)
			.withBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, ScheduledExecutorService.class, () -> scheduler)
			.run((context) -> {
				Reads reads = context.getBean(Reads.class);
				CompletableFuture<String> result = reads.future();
				assertThat(scheduler.delays()).containsExactly(Duration.ofMillis(50));
				assertThat(scheduler.runNext()).isTrue();
				assertThat(reads.futures()).hasSize(2);
				reads.futures().get(1).complete("second");
				assertThat(result).isCompletedWithValue("second");
				assertThat(reads.futures().get(0)).isCancelled();
				assertThat(scheduler.pending()).isZero();
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(hedges(registry, "Reads.future", "sent")).isOne();
				assertThat(hedges(registry, "Reads.future", "won")).isOne();
				assertThat(hedges(registry, "Reads.future", "cancelled")).isOne();
				assertThat(registry.get(BackoffMetrics.CALLS).tag("method", "Reads.future").tag("outcome", "success")
					.counter()
					.count()).isOne();
				// Both copies were load on the dependency: the call's attempts say so.
				DistributionSummary attempts = registry.get(BackoffMetrics.ATTEMPTS).tag("method", "Reads.future")
					.tag("outcome", "success")
					.summary();
				assertThat(attempts.count()).isOne();
				assertThat(attempts.totalAmount()).isEqualTo(2);
			});
	}

	@Test
	void aMonoMethodSubscribesACopyAfterTheDelayAndCancelsTheLosersSubscription() {
		ManualScheduler scheduler = new ManualScheduler();
		this.contextRunner.withBean(Reads.class).withAllowBeanDefinitionOverriding(true)
			.withBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, ScheduledExecutorService.class, () -> scheduler)
			.run((context) -> {
				Reads reads = context.getBean(Reads.class);
				CompletableFuture<String> result = reads.mono().toFuture();
				assertThat(reads.sinks()).hasSize(1);
				assertThat(scheduler.runNext()).isTrue();
				assertThat(reads.sinks()).hasSize(2);
				reads.sinks().get(1).tryEmitValue("second");
				assertThat(result).isCompletedWithValue("second");
				assertThat(reads.cancellations()).hasValue(1);
				assertThat(hedges(context.getBean(MeterRegistry.class), "Reads.mono", "won")).isOne();
			});
	}

	@Test
	void aMonoCopyCutOffByTheAttemptTimeoutHasItsSubscriptionCancelled() {
		ManualScheduler scheduler = new ManualScheduler();
		this.contextRunner.withBean(Reads.class).withAllowBeanDefinitionOverriding(true)
			.withBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, ScheduledExecutorService.class, () -> scheduler)
			.run((context) -> {
				Reads reads = context.getBean(Reads.class);
				CompletableFuture<String> result = reads.timedMono().toFuture();
				// The hedge timer, then the first copy's timeout.
				assertThat(scheduler.delays()).containsExactly(Duration.ofMillis(50), Duration.ofMillis(200));
				assertThat(scheduler.runNext()).isTrue();
				assertThat(reads.sinks()).hasSize(2);
				assertThat(scheduler.runNext()).isTrue();
				// Cut off, as an unhedged attempt is by Reactor's timeout: the work behind it stops.
				assertThat(reads.cancellations()).hasValue(1);
				assertThat(result).isNotDone();
				reads.sinks().get(1).tryEmitValue("second");
				assertThat(result).isCompletedWithValue("second");
				assertThat(reads.cancellations()).hasValue(1);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(hedges(registry, "Reads.timedMono", "failed")).isOne();
				assertThat(hedges(registry, "Reads.timedMono", "won")).isOne();
			});
	}

	@Test
	void cancellingAHedgedMonoCancelsEveryCopy() {
		ManualScheduler scheduler = new ManualScheduler();
		this.contextRunner.withBean(Reads.class).withAllowBeanDefinitionOverriding(true)
			.withBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, ScheduledExecutorService.class, () -> scheduler)
			.run((context) -> {
				Reads reads = context.getBean(Reads.class);
				reads.mono().subscribe().dispose();
				assertThat(reads.cancellations()).hasValue(1);
				assertThat(scheduler.pending()).isZero();
				assertThat(context.getBean(MeterRegistry.class).get(BackoffMetrics.CALLS).tag("method", "Reads.mono")
					.tag("outcome", "interrupted").counter().count()).isOne();
			});
	}

	@Test
	void eachCopyIsAnAttemptInTheObservations() {
		ManualScheduler scheduler = new ManualScheduler();
		List<String> stopped = new CopyOnWriteArrayList<>();
		this.contextRunner.withBean(Reads.class).withAllowBeanDefinitionOverriding(true)
			.withBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, ScheduledExecutorService.class, () -> scheduler)
			.withPropertyValues("backoff.observations.enabled=true")
			.withBean(ObservationRegistry.class, () -> {
				ObservationRegistry registry = ObservationRegistry.create();
				registry.observationConfig().observationHandler(new ObservationHandler<Observation.Context>() {

					@Override
					public void onStop(Observation.Context observed) {
						String outcome = observed.getLowCardinalityKeyValues().stream()
							.filter((keyValue) -> keyValue.getKey().endsWith("outcome"))
							.map((keyValue) -> keyValue.getValue())
							.findFirst()
							.orElse("?");
						stopped.add(observed.getName() + " " + outcome);
					}

					@Override
					public boolean supportsContext(Observation.Context observed) {
						return true;
					}

				});
				return registry;
			})
			.run((context) -> {
				Reads reads = context.getBean(Reads.class);
				CompletableFuture<String> result = reads.future();
				scheduler.runNext();
				reads.futures().get(1).complete("second");
				assertThat(result).isCompletedWithValue("second");
				assertThat(stopped).containsExactly("backoff.attempt cancelled", "backoff.attempt success",
						"backoff.call success");
			});
	}

	@Test
	void aBlockingMethodWithMaxHedgesOnTheAnnotationStopsStartUp() {
		this.contextRunner.withBean(BlockingHedged.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(AttemptTimeoutTests.configurationFailure(context.getStartupFailure()))
				.hasMessageStartingWith("@Backoff(maxHedges) on BlockingHedged.fetch was '1', but cannot send hedges "
						+ "for BlockingHedged.fetch, which is blocking")
				.hasMessageContaining("return CompletionStage, CompletableFuture or Mono");
		});
	}

	@Test
	void aFluxMethodWhosePolicyHedgesStopsStartUpNamingTheProperty() {
		this.contextRunner.withBean(Streams.class)
			.withPropertyValues("backoff.policies.reads.hedge-delay=50ms", "backoff.policies.reads.max-hedges=1")
			.run((context) -> {
				assertThat(context).hasFailed();
				BackoffConfigurationException failure = AttemptTimeoutTests.configurationFailure(context.getStartupFailure());
				assertThat(failure.getProperty()).isEqualTo("backoff.policies.reads.max-hedges");
				// As docs/hedging.md shows it.
				assertThat(failure.getMessage()).startsWith("backoff.policies.reads.max-hedges was '1', but cannot send "
						+ "hedges for Streams.flux, which may give many values (a Flux) or send a body: its copies cannot "
						+ "race for one answer.");
			});
	}

	@Test
	void theDefaultsHedgeNonBlockingMethodsAndLeaveBlockingOnesAlone() {
		this.contextRunner.withBean(Blocking.class)
			.withBean(Reads.class)
			.withPropertyValues("backoff.defaults.hedge-delay=20ms", "backoff.defaults.max-hedges=2")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				BackoffOperationSource source = context.getBean(BackoffOperationSource.class);
				assertThat(context.getBean(Blocking.class).fetch()).isEqualTo("ok");
				context.getBean(Reads.class).plain().join();
				assertThat(source.getAll()).filteredOn((operation) -> operation.getMethodTag().equals("Blocking.fetch"))
					.singleElement()
					.satisfies((operation) -> assertThat(operation.getPolicy().getHedging().isEnabled()).isFalse());
				assertThat(source.getAll()).filteredOn((operation) -> operation.getMethodTag().equals("Reads.plain"))
					.singleElement()
					.satisfies((operation) -> assertThat(operation.getPolicy().getHedging().getMaxHedges()).isEqualTo(2));
			});
	}

	@Test
	void aLiveChangeHedgesNonBlockingMethodsAndIsRefusedForABlockingOne() {
		this.contextRunner.withBean(Blocking.class)
			.withBean(Reads.class)
			.run((context) -> {
				BackoffOperationSource source = context.getBean(BackoffOperationSource.class);
				context.getBean(Reads.class).plain().join();
				assertThat(source.change("reads", Map.of("hedgeDelay", "30ms", "maxHedges", 2))).containsOnlyKeys("reads");
				assertThat(source.getAll()).filteredOn((operation) -> operation.getMethodTag().equals("Reads.plain"))
					.singleElement()
					.satisfies((operation) -> assertThat(operation.getPolicy().getHedging().getDelay())
						.isEqualTo(Duration.ofMillis(30)));
				assertThatExceptionOfType(BackoffConfigurationException.class)
					.isThrownBy(() -> source.change("remote", Map.of("hedgeDelay", "30ms", "maxHedges", 1)))
					.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("backoff.policies.remote.max-hedges"))
					.withMessageContaining("Blocking.fetch, which is blocking");
				assertThat(source.getPolicies().get("remote").getHedging().isEnabled()).isFalse();
			});
	}

	private static double hedges(MeterRegistry registry, String method, String event) {
		return registry.get(BackoffMetrics.HEDGES).tag("method", method).tag("event", event).counter().count();
	}

	static class Reads {

		// Read through methods: the test holds the proxy, whose own fields are unset.
		private final List<CompletableFuture<String>> futures = new CopyOnWriteArrayList<>();

		private final List<Sinks.One<String>> sinks = new CopyOnWriteArrayList<>();

		private final AtomicInteger cancellations = new AtomicInteger();

		public List<CompletableFuture<String>> futures() {
			return this.futures;
		}

		public List<Sinks.One<String>> sinks() {
			return this.sinks;
		}

		public AtomicInteger cancellations() {
			return this.cancellations;
		}

		@Backoff(value = "reads", hedgeDelay = "50ms", maxHedges = "1")
		public CompletableFuture<String> future() {
			CompletableFuture<String> future = new CompletableFuture<>();
			this.futures.add(future);
			return future;
		}

		@Backoff(value = "reads", hedgeDelay = "50ms", maxHedges = "1")
		public Mono<String> mono() {
			return Mono.defer(() -> {
				Sinks.One<String> sink = Sinks.one();
				this.sinks.add(sink);
				return sink.asMono();
			}).doOnCancel(this.cancellations::incrementAndGet);
		}

		@Backoff(value = "reads", hedgeDelay = "50ms", maxHedges = "1", attemptTimeout = "200ms")
		public Mono<String> timedMono() {
			return mono();
		}

		@Backoff("reads")
		public CompletableFuture<String> plain() {
			return CompletableFuture.completedFuture("ok");
		}

	}

	static class BlockingHedged {

		@Backoff(hedgeDelay = "50ms", maxHedges = "1")
		public String fetch() {
			return "ok";
		}

	}

	static class Blocking {

		@Backoff("remote")
		public String fetch() {
			return "ok";
		}

	}

	static class Streams {

		@Backoff("reads")
		public Flux<String> flux() {
			return Flux.just("a", "b");
		}

	}

}
