package dev.backoff.spring.operation;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.BackoffListener;
import dev.backoff.Jitter;
import dev.backoff.ManualScheduler;
import dev.backoff.Outcome;
import dev.backoff.spring.BackoffConfiguration;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.http.BackoffHttp;
import dev.backoff.spring.http.ReactiveBackoffHttp;
import dev.backoff.spring.metrics.BackoffMetrics;
import dev.backoff.spring.operation.BackoffOperationSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@code attempt-timeout} through Spring: an attempt of a {@code Mono},
 * {@code Flux} or {@code CompletableFuture} method that never completes is cut off, retried,
 * and the call ends {@code exhausted} with a {@link TimeoutException}, no timer left behind;
 * a blocking method cannot have one. Time is virtual (Reactor) or manual (the scheduler).
 */
class AttemptTimeoutTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class)
		.withBean(Ends.class)
		.withPropertyValues("backoff.defaults.jitter=none", "backoff.defaults.base-delay=100ms");

	@Test
	void monoAttemptThatNeverCompletesIsCancelledRetriedThenExhausted() {
		TimerTracking timers = new TimerTracking();
		this.contextRunner.withBean(Hanging.class).run((context) -> {
			Hanging service = context.getBean(Hanging.class);
			// Attempts at 0, 1.1s (1s + 100ms) and 2.3s (2.1s + 200ms), each cut off after 1s.
			StepVerifier.withVirtualTime(service::mono, () -> timers, Long.MAX_VALUE)
				.expectSubscription()
				.thenAwait(Duration.ofMillis(999))
				.then(() -> assertThat(service.cancellations()).isZero())
				.thenAwait(Duration.ofMillis(1))
				.then(() -> assertThat(service.cancellations()).isOne())
				.thenAwait(Duration.ofMillis(100))
				.then(() -> assertThat(service.subscriptions()).isEqualTo(2))
				.thenAwait(Duration.ofMillis(2200))
				.expectErrorSatisfies((failure) -> assertThat(failure).isInstanceOf(TimeoutException.class)
					.hasMessage("attempt 3 did not complete within 1s"))
				.verify(TIMEOUT);
			assertThat(service.subscriptions()).isEqualTo(3);
			assertThat(service.cancellations()).isEqualTo(3);
			assertThat(timers.pending()).isZero();
			assertExhaustedByTimeouts(context.getBean(Ends.class), context.getBean(MeterRegistry.class), "Hanging.mono");
		});
	}

	@Test
	void monoAttemptThatCompletesInTimeLeavesNoTimer() {
		TimerTracking timers = new TimerTracking();
		this.contextRunner.withBean(Hanging.class).run((context) -> {
			Hanging service = context.getBean(Hanging.class);
			StepVerifier.withVirtualTime(service::quick, () -> timers, Long.MAX_VALUE)
				.expectNext("ok")
				.expectComplete()
				.verify(TIMEOUT);
			// The attempt's timeout was scheduled, then disposed as the attempt completed.
			assertThat(timers.scheduled()).isPositive();
			assertThat(timers.pending()).isZero();
			assertThat(context.getBean(Ends.class).outcomes).containsExactly(Outcome.SUCCESS);
		});
	}

	@Test
	void fluxAttemptIsBoundedAsAWholeNotPerElement() {
		TimerTracking timers = new TimerTracking();
		this.contextRunner.withBean(Hanging.class).run((context) -> {
			Hanging service = context.getBean(Hanging.class);
			// An element every 400ms: a timeout per element would never fire. Two elements per attempt.
			StepVerifier.withVirtualTime(service::flux, () -> timers, Long.MAX_VALUE)
				.expectSubscription()
				.thenAwait(Duration.ofMillis(999))
				.expectNext(0L, 1L)
				.then(() -> assertThat(service.cancellations()).isZero())
				.thenAwait(Duration.ofMillis(1))
				.then(() -> assertThat(service.cancellations()).isOne())
				.thenAwait(Duration.ofMillis(100))
				.then(() -> assertThat(service.subscriptions()).isEqualTo(2))
				.thenAwait(Duration.ofMillis(2200))
				.expectNext(0L, 1L, 0L, 1L)
				.expectErrorSatisfies((failure) -> assertThat(failure).isInstanceOf(TimeoutException.class)
					.hasMessage("attempt 3 did not complete within 1s"))
				.verify(TIMEOUT);
			assertThat(service.subscriptions()).isEqualTo(3);
			assertThat(service.cancellations()).isEqualTo(3);
			assertThat(timers.pending()).isZero();
			assertExhaustedByTimeouts(context.getBean(Ends.class), context.getBean(MeterRegistry.class), "Hanging.flux");
		});
	}

	@Test
	void fluxAttemptThatCompletesInTimeSucceedsAndLeavesNoTimer() {
		TimerTracking timers = new TimerTracking();
		this.contextRunner.withBean(Hanging.class).run((context) -> {
			Hanging service = context.getBean(Hanging.class);
			StepVerifier.withVirtualTime(service::shortFlux, () -> timers, Long.MAX_VALUE)
				.expectSubscription()
				.thenAwait(Duration.ofMillis(600))
				.expectNext(0L, 1L)
				.expectComplete()
				.verify(TIMEOUT);
			assertThat(service.subscriptions()).isOne();
			assertThat(timers.pending()).isZero();
			assertThat(context.getBean(Ends.class).outcomes).containsExactly(Outcome.SUCCESS);
		});
	}

	@Test
	void webClientFilterCancelsAnExchangeThatNeverAnswersThenRetriesIt() {
		TimerTracking timers = new TimerTracking();
		this.contextRunner.withPropertyValues("backoff.policies.remote.attempt-timeout=1s").run((context) -> {
			AtomicInteger exchanges = new AtomicInteger();
			AtomicInteger cancellations = new AtomicInteger();
			// No network: an exchange that never answers, as a hung server would.
			WebClient client = WebClient.builder()
				.exchangeFunction((request) -> Mono.<ClientResponse>never()
					.doOnSubscribe((subscription) -> exchanges.incrementAndGet())
					.doOnCancel(cancellations::incrementAndGet))
				.filter(context.getBean(ReactiveBackoffHttp.class).filter("remote"))
				.build();
			StepVerifier
				.withVirtualTime(() -> client.get().uri("http://quotes/quote").retrieve().bodyToMono(String.class),
						() -> timers, Long.MAX_VALUE)
				.expectSubscription()
				.thenAwait(Duration.ofMillis(3300))
				.expectErrorSatisfies((failure) -> assertThat(failure).isInstanceOf(TimeoutException.class)
					.hasMessage("attempt 3 did not complete within 1s"))
				.verify(TIMEOUT);
			assertThat(exchanges).hasValue(3);
			assertThat(cancellations).hasValue(3);
			assertThat(timers.pending()).isZero();
			assertExhaustedByTimeouts(context.getBean(Ends.class), context.getBean(MeterRegistry.class), "remote GET");
		});
	}

	@Test
	void completableFutureAttemptThatNeverCompletesIsRetriedThenExhausted() {
		ManualScheduler scheduler = new ManualScheduler();
		this.contextRunner.withBean(Hanging.class)
			.withAllowBeanDefinitionOverriding(true)
			.withBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, ScheduledExecutorService.class, () -> scheduler)
			.run((context) -> {
				Hanging service = context.getBean(Hanging.class);
				CompletableFuture<String> result = service.future();
				assertThat(scheduler.delays()).containsExactly(Duration.ofSeconds(1));
				assertThat(scheduler.runNext()).isTrue();
				// The timed-out attempt's future is completed with the timeout: its dependents stop waiting.
				assertThat(service.futures().get(0)).isCompletedExceptionally();
				assertThat(scheduler.runNext()).isTrue();
				assertThat(service.futures()).hasSize(2);
				assertThat(scheduler.runAll()).isEqualTo(3);
				assertThat(scheduler.delays()).containsExactly(Duration.ofSeconds(1), Duration.ofMillis(100),
						Duration.ofSeconds(1), Duration.ofMillis(200), Duration.ofSeconds(1));
				assertThat(result).isCompletedExceptionally();
				assertThat(result.handle((value, failure) -> failure).join()).isInstanceOf(TimeoutException.class)
					.hasMessage("attempt 3 did not complete within 1s");
				assertThat(scheduler.pending()).isZero();
				assertExhaustedByTimeouts(context.getBean(Ends.class), context.getBean(MeterRegistry.class),
						"Hanging.future");
			});
	}

	@Test
	void blockingMethodWithAnAttemptTimeoutOnTheAnnotationStopsStartUp() {
		this.contextRunner.withBean(BlockingAnnotated.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(configurationFailure(context.getStartupFailure()))
				.hasMessageStartingWith("@Backoff(attemptTimeout) on BlockingAnnotated.fetch was '2s', but cannot "
						+ "bound the attempts of BlockingAnnotated.fetch, which is blocking")
				.hasMessageContaining("Set the HTTP client's own connect and read timeouts")
				.hasMessageContaining("return CompletionStage, CompletableFuture, Mono or Flux");
		});
	}

	@Test
	void blockingMethodWithAnAttemptTimeoutOnItsPolicyStopsStartUp() {
		this.contextRunner.withBean(BlockingNamed.class)
			.withPropertyValues("backoff.policies.remote.attempt-timeout=2s")
			.run((context) -> {
				assertThat(context).hasFailed();
				BackoffConfigurationException failure = configurationFailure(context.getStartupFailure());
				assertThat(failure.getProperty()).isEqualTo("backoff.policies.remote.attempt-timeout");
				assertThat(failure.getMessage()).contains("BlockingNamed.fetch");
			});
	}

	@Test
	void theDefaultsAttemptTimeoutBoundsNonBlockingMethodsAndLeavesBlockingOnesAlone() {
		this.contextRunner.withBean(BlockingNamed.class)
			.withBean(Hanging.class)
			.withPropertyValues("backoff.defaults.attempt-timeout=3s", "backoff.policies.remote.max-attempts=2")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(BlockingNamed.class).fetch()).isEqualTo("ok");
				BackoffOperationSource source = context.getBean(BackoffOperationSource.class);
				assertThat(source.getAll())
					.filteredOn((operation) -> operation.getMethodTag().equals("BlockingNamed.fetch"))
					.singleElement()
					.satisfies((operation) -> assertThat(operation.getPolicy().getAttemptTimeout()).isNull());
				assertThat(source.getPolicies().get("remote").getAttemptTimeout()).isEqualTo(Duration.ofSeconds(3));
				// The annotation's 1s wins over the defaults' 3s.
				context.getBean(Hanging.class).quick().block(TIMEOUT);
				assertThat(source.getAll()).filteredOn((operation) -> operation.getMethodTag().equals("Hanging.quick"))
					.singleElement()
					.satisfies((operation) -> assertThat(operation.getPolicy().getAttemptTimeout())
						.isEqualTo(Duration.ofSeconds(1)));
			});
	}

	@Test
	void theDefaultsAttemptTimeoutLongerThanAPolicysMaxElapsedIsLeftOutForItsBlockingMethods() {
		this.contextRunner.withBean(BlockingNamed.class)
			.withPropertyValues("backoff.defaults.attempt-timeout=5s", "backoff.policies.remote.max-elapsed=2s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(BlockingNamed.class).fetch()).isEqualTo("ok");
				BackoffOperationSource source = context.getBean(BackoffOperationSource.class);
				assertThat(source.getPolicies().get("remote").getAttemptTimeout()).isNull();
				assertThat(source.getPolicies().get("remote").getRules().getMaxElapsed()).isEqualTo(Duration.ofSeconds(2));
			});
	}

	@Test
	void theDefaultsAttemptTimeoutLongerThanAPolicysMaxElapsedStopsStartUpForItsNonBlockingMethods() {
		this.contextRunner.withBean(Reactive.class)
			.withPropertyValues("backoff.defaults.attempt-timeout=5s", "backoff.policies.other.max-elapsed=2s")
			.run((context) -> {
				assertThat(context).hasFailed();
				BackoffConfigurationException failure = configurationFailure(context.getStartupFailure());
				assertThat(failure.getProperty()).isEqualTo("backoff.defaults.attempt-timeout");
				assertThat(failure.getMessage()).isEqualTo("backoff.defaults.attempt-timeout was '5s', but must be at "
						+ "most backoff.policies.other.max-elapsed (2s) for Reactive.mono, which is non-blocking: no "
						+ "retry could follow an attempt that ran longer than the whole call may take. Set "
						+ "backoff.policies.other.attempt-timeout to at most 2s, or lengthen "
						+ "backoff.policies.other.max-elapsed.");
			});
	}

	@Test
	void aLiveChangeOfMaxElapsedBelowTheDefaultsAttemptTimeoutIsRefusedOnlyForNonBlockingMethods() {
		this.contextRunner.withBean(BlockingNamed.class)
			.withBean(Reactive.class)
			.withPropertyValues("backoff.defaults.attempt-timeout=5s", "backoff.policies.other.max-attempts=2",
					"backoff.policies.remote.max-attempts=2")
			.run((context) -> {
				BackoffOperationSource source = context.getBean(BackoffOperationSource.class);
				assertThat(source.change("remote", Map.of("maxElapsed", "2s"))).containsOnlyKeys("remote");
				assertThatExceptionOfType(BackoffConfigurationException.class)
					.isThrownBy(() -> source.change("other", Map.of("maxElapsed", "2s")))
					.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("backoff.defaults.attempt-timeout"))
					.withMessageContaining("for Reactive.mono, which is non-blocking");
				assertThat(source.getPolicies().get("other").getRules().getMaxElapsed()).isNull();
			});
	}

	@Test
	void bindsTheYamlKeyAndRejectsOneLongerThanMaxElapsed() {
		this.contextRunner.withPropertyValues("backoff.policies.quotes.attempt-timeout=40s",
				"backoff.policies.quotes.max-elapsed=30s")
			.run((context) -> {
				assertThat(context).hasFailed();
				BackoffConfigurationException failure = configurationFailure(context.getStartupFailure());
				assertThat(failure.getProperty()).isEqualTo("backoff.policies.quotes.attempt-timeout");
				assertThat(failure.getMessage()).contains("'40s'").contains("must be at most max-elapsed (30s)");
			});
		this.contextRunner.withPropertyValues("backoff.policies.quotes.attempt-timeout=1500ms")
			.run((context) -> assertThat(context.getBean(BackoffOperationSource.class)
				.getPolicies()
				.get("quotes")
				.getAttemptTimeout()).isEqualTo(Duration.ofMillis(1500)));
	}

	@Test
	void aLiveChangeGivesNonBlockingMethodsATimeoutAndIsRefusedForABlockingOne() {
		this.contextRunner.withBean(BlockingNamed.class)
			.withBean(Reactive.class)
			.withPropertyValues("backoff.policies.other.max-attempts=2", "backoff.policies.remote.max-attempts=2")
			.run((context) -> {
				BackoffOperationSource source = context.getBean(BackoffOperationSource.class);
				Map<String, ?> changes = source.change("other", Map.of("attemptTimeout", "2s"));
				assertThat(changes).containsOnlyKeys("other");
				assertThat(source.getAll()).filteredOn((operation) -> operation.getMethodTag().equals("Reactive.mono"))
					.singleElement()
					.satisfies((operation) -> assertThat(operation.getPolicy().getAttemptTimeout())
						.isEqualTo(Duration.ofSeconds(2)));
				assertThatExceptionOfType(BackoffConfigurationException.class)
					.isThrownBy(() -> source.change("remote", Map.of("attemptTimeout", "2s")))
					.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("backoff.policies.remote.attempt-timeout"))
					.withMessageContaining("BlockingNamed.fetch, which is blocking");
				assertThat(source.getPolicies().get("remote").getAttemptTimeout()).isNull();
			});
	}

	@Test
	void blockingHttpInterceptorRefusesAPolicyWithItsOwnAttemptTimeout() {
		this.contextRunner
			.withPropertyValues("backoff.defaults.attempt-timeout=3s", "backoff.policies.remote.attempt-timeout=2s",
					"backoff.policies.plain.max-attempts=2")
			.run((context) -> {
				BackoffHttp http = context.getBean(BackoffHttp.class);
				assertThatExceptionOfType(BackoffConfigurationException.class)
					.isThrownBy(() -> http.interceptor("remote"))
					.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("backoff.policies.remote.attempt-timeout"))
					.withMessageContaining("BackoffHttp.interceptor(\"remote\"), which blocks the calling thread")
					.withMessageContaining("or use a WebClient with ReactiveBackoffHttp.filter");
				// The defaults' timeout is for non-blocking calls: the interceptor leaves it out.
				assertThat(http.interceptor("plain")).isNotNull();
				assertThatExceptionOfType(BackoffConfigurationException.class)
					.isThrownBy(() -> context.getBean(BackoffOperationSource.class)
						.change("plain", Map.of("attemptTimeout", "1s")))
					.withMessageContaining("BackoffHttp.interceptor(\"plain\")");
			});
	}

	/** @return the {@link BackoffConfigurationException} along a start-up failure's causes (HedgingTests too) */
	static BackoffConfigurationException configurationFailure(Throwable failure) {
		Throwable cause = failure;
		while (cause != null && !(cause instanceof BackoffConfigurationException)) {
			cause = cause.getCause();
		}
		assertThat(cause).as("a BackoffConfigurationException in %s", failure).isNotNull();
		return (BackoffConfigurationException) cause;
	}

	private static void assertExhaustedByTimeouts(Ends ends, MeterRegistry registry, String method) {
		assertThat(ends.outcomes).containsExactly(Outcome.EXHAUSTED);
		assertThat(ends.failures).singleElement().isInstanceOf(TimeoutException.class);
		assertThat(ends.retried).hasSize(2)
			.allSatisfy((failure) -> assertThat(failure).isInstanceOf(TimeoutException.class));
		assertThat(registry.get(BackoffMetrics.RETRIES).tag("method", method).tag("exception", "TimeoutException")
			.counter()
			.count()).isEqualTo(2);
		assertThat(registry.get(BackoffMetrics.CALLS).tag("method", method).tag("outcome", "exhausted")
			.counter()
			.count()).isOne();
	}

	/** A virtual clock that knows which of its timers are still to run: none must be left. */
	static final class TimerTracking extends VirtualTimeScheduler {

		private final List<Timer> timers = new CopyOnWriteArrayList<>();

		TimerTracking() {
			super(true);
		}

		@Override
		public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
			Timer timer = new Timer();
			this.timers.add(timer);
			Disposable scheduled = super.schedule(() -> {
				timer.ran.set(true);
				task.run();
			}, delay, unit);
			return () -> {
				timer.disposed.set(true);
				scheduled.dispose();
			};
		}

		long scheduled() {
			return this.timers.size();
		}

		long pending() {
			return this.timers.stream().filter((timer) -> !timer.ran.get() && !timer.disposed.get()).count();
		}

		private static final class Timer {

			private final AtomicBoolean ran = new AtomicBoolean();

			private final AtomicBoolean disposed = new AtomicBoolean();

		}

	}

	/** Records how calls ended and what was retried. */
	static class Ends implements BackoffListener {

		final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

		final List<Throwable> failures = new CopyOnWriteArrayList<>();

		final List<Throwable> retried = new CopyOnWriteArrayList<>();

		@Override
		public void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
			this.retried.add(failure);
		}

		@Override
		public void onSuccess(Outcome outcome, int attempts) {
			this.outcomes.add(outcome);
		}

		@Override
		public void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
			this.outcomes.add(outcome);
			this.failures.add(failure);
		}

	}

	static class Hanging {

		private final AtomicInteger subscriptions = new AtomicInteger();

		private final AtomicInteger cancellations = new AtomicInteger();

		private final List<CompletableFuture<String>> futures = new CopyOnWriteArrayList<>();

		@Backoff(attemptTimeout = "1s")
		public Mono<String> mono() {
			return Mono.<String>never()
				.doOnSubscribe((subscription) -> this.subscriptions.incrementAndGet())
				.doOnCancel(this.cancellations::incrementAndGet);
		}

		@Backoff(attemptTimeout = "1s")
		public Flux<Long> flux() {
			return Flux.interval(Duration.ofMillis(400))
				.doOnSubscribe((subscription) -> this.subscriptions.incrementAndGet())
				.doOnCancel(this.cancellations::incrementAndGet);
		}

		@Backoff(attemptTimeout = "1s")
		public Flux<Long> shortFlux() {
			return Flux.interval(Duration.ofMillis(300))
				.take(2)
				.doOnSubscribe((subscription) -> this.subscriptions.incrementAndGet());
		}

		@Backoff(attemptTimeout = "1s")
		public CompletableFuture<String> future() {
			CompletableFuture<String> future = new CompletableFuture<>();
			this.futures.add(future);
			return future;
		}

		@Backoff(attemptTimeout = "1s")
		public Mono<String> quick() {
			return Mono.just("ok");
		}

		int subscriptions() {
			return this.subscriptions.get();
		}

		int cancellations() {
			return this.cancellations.get();
		}

		List<CompletableFuture<String>> futures() {
			return this.futures;
		}

	}

	static class BlockingAnnotated {

		@Backoff(attemptTimeout = "2s")
		public String fetch() {
			return "ok";
		}

	}

	static class BlockingNamed {

		@Backoff("remote")
		public String fetch() {
			return "ok";
		}

	}

	static class Reactive {

		@Backoff("other")
		public Mono<String> mono() {
			return Mono.just("ok");
		}

	}

}
