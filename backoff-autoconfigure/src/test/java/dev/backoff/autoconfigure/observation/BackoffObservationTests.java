package dev.backoff.autoconfigure.observation;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.ManualScheduler;
import dev.backoff.Sleeper;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.spring.observation.BackoffObservationDocumentation;
import dev.backoff.spring.observation.DefaultBackoffAttemptObservationConvention;
import dev.backoff.spring.observation.DefaultBackoffObservationConvention;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for the {@code backoff.call} and {@code backoff.attempt} observations of every return
 * type, recorded by Micrometer's {@link TestObservationRegistry} (which also checks that every
 * observation is started once, stopped once, and its scopes closed in order on their thread):
 * the exact observations, their keys and their nesting under the caller's observation, for a
 * call that succeeds at once, one that retries twice, one that runs out of attempts and one
 * whose failure is not retryable.
 */
class BackoffObservationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class,
				BackoffObservationAutoConfiguration.class))
		.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
		// The handlers are added to the registry by hand, not as beans: switched on explicitly.
		.withPropertyValues("backoff.observations.enabled=true")
		.withBean(Sleeper.class, () -> Sleeper.INSTANT)
		.withBean(BackoffAutoConfiguration.SCHEDULER_BEAN_NAME, ManualScheduler.class, ManualScheduler::new)
		.withBean(Service.class)
		.withBean(Outer.class);

	@ParameterizedTest
	@EnumSource
	void aCallThatSucceedsAtOnceIsOneCallWithOneAttempt(Kind kind) {
		run(kind, 0, (observed, service) -> {
			assertThat(observed.result).isEqualTo("ok 1");
			assertThat(names(observed.stopped)).containsExactly("backoff.attempt", "backoff.call");
			Observation.Context call = observed.stopped.get(1);
			assertThat(keys(call.getLowCardinalityKeyValues())).containsExactlyInAnyOrderEntriesOf(
					Map.of("backoff.policy", "defaults", "backoff.method", kind.method, "backoff.outcome", "success"));
			assertThat(call.getHighCardinalityKeyValues()).isEmpty();
			assertThat(call.getError()).isNull();
			assertAttempt(observed.stopped.get(0), kind, 1, "success", "none", null);
			return null;
		});
	}

	@ParameterizedTest
	@EnumSource
	void aCallRetriedTwiceIsOneCallWithThreeAttemptsAndTheWaitsBetweenThem(Kind kind) {
		run(kind, 2, (observed, service) -> {
			assertThat(observed.result).isEqualTo("ok 3");
			assertThat(names(observed.stopped)).containsExactly("backoff.attempt", "backoff.attempt",
					"backoff.attempt", "backoff.call");
			assertAttempt(observed.stopped.get(0), kind, 1, "retried", "IOException", "100ms");
			assertAttempt(observed.stopped.get(1), kind, 2, "retried", "IOException", "200ms");
			assertAttempt(observed.stopped.get(2), kind, 3, "success", "none", null);
			assertThat(keys(observed.stopped.get(3).getLowCardinalityKeyValues()))
				.containsEntry("backoff.outcome", "success_after_retry");
			return null;
		});
	}

	@ParameterizedTest
	@EnumSource
	void aCallThatRunsOutOfAttemptsEndsExhaustedWithItsLastAttemptFailed(Kind kind) {
		run(kind, 100, (observed, service) -> {
			assertThat(observed.failure).isInstanceOf(IOException.class).hasMessage("failure 3");
			assertThat(names(observed.stopped)).containsExactly("backoff.attempt", "backoff.attempt",
					"backoff.attempt", "backoff.call");
			assertAttempt(observed.stopped.get(0), kind, 1, "retried", "IOException", "100ms");
			assertAttempt(observed.stopped.get(1), kind, 2, "retried", "IOException", "200ms");
			assertAttempt(observed.stopped.get(2), kind, 3, "failed", "IOException", null);
			assertThat(keys(observed.stopped.get(3).getLowCardinalityKeyValues())).containsEntry("backoff.outcome",
					"exhausted");
			// The call gave up: its observation carries the failure the caller got, as Spring's do.
			assertThat(observed.stopped.get(3).getError()).isSameAs(observed.failure);
			return null;
		});
	}

	@ParameterizedTest
	@EnumSource
	void aCallWhoseFailureIsNotRetryableEndsAfterOneFailedAttempt(Kind kind) {
		run(kind, -1, (observed, service) -> {
			assertThat(observed.failure).isInstanceOf(IllegalStateException.class);
			assertThat(names(observed.stopped)).containsExactly("backoff.attempt", "backoff.call");
			assertAttempt(observed.stopped.get(0), kind, 1, "failed", "IllegalStateException", null);
			assertThat(keys(observed.stopped.get(1).getLowCardinalityKeyValues())).containsEntry("backoff.outcome",
					"not_retryable");
			assertThat(observed.stopped.get(1).getError()).isSameAs(observed.failure);
			return null;
		});
	}

	@org.junit.jupiter.api.Test
	void theKeysAreExactlyTheDocumentedOnes() {
		run(Kind.BLOCKING, 2, (observed, service) -> {
			Observation.Context call = observed.stopped.get(3);
			assertThat(keys(call.getLowCardinalityKeyValues()).keySet())
				.containsExactlyInAnyOrderElementsOf(documented(BackoffObservationDocumentation.CALL.getLowCardinalityKeyNames()));
			Observation.Context retried = observed.stopped.get(0);
			assertThat(keys(retried.getLowCardinalityKeyValues()).keySet()).containsExactlyInAnyOrderElementsOf(
					documented(BackoffObservationDocumentation.ATTEMPT.getLowCardinalityKeyNames()));
			assertThat(keys(retried.getHighCardinalityKeyValues()).keySet()).containsExactlyInAnyOrderElementsOf(
					documented(BackoffObservationDocumentation.ATTEMPT.getHighCardinalityKeyNames()));
			assertThat(call.getName()).isEqualTo(new DefaultBackoffObservationConvention().getName());
			assertThat(retried.getName()).isEqualTo(new DefaultBackoffAttemptObservationConvention().getName());
			return null;
		});
	}

	@org.junit.jupiter.api.Test
	void aCallMadeInsideAnAttemptIsObservedUnderThatAttempt() {
		this.contextRunner.run((context) -> {
			List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
			context.getBean(TestObservationRegistry.class).observationConfig().observationHandler(new Recorder(stopped));
			assertThat(context.getBean(Outer.class).call()).isEqualTo("ok 1");
			assertThat(names(stopped)).containsExactly("backoff.attempt", "backoff.call", "backoff.attempt",
					"backoff.call");
			assertThat(keys(stopped.get(1).getLowCardinalityKeyValues())).containsEntry("backoff.method",
					"Service.blocking");
			assertThat(keys(stopped.get(3).getLowCardinalityKeyValues())).containsEntry("backoff.method", "Outer.call");
			assertThat(stopped.get(1).getParentObservation().getContextView()).isSameAs(stopped.get(2));
			assertThat(stopped.get(2).getParentObservation().getContextView()).isSameAs(stopped.get(3));
		});
	}

	@org.junit.jupiter.api.Test
	void aFutureCancelledWhileWaitingEndsTheCallInterruptedWithNoAttemptOpen() {
		this.contextRunner.run((context) -> {
			List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
			context.getBean(TestObservationRegistry.class).observationConfig().observationHandler(new Recorder(stopped));
			Service service = context.getBean(Service.class);
			service.failFirst(100);
			CompletableFuture<String> future = service.future();
			assertThat(future.cancel(false)).isTrue();
			assertThat(context.getBean(ManualScheduler.class).runAll()).isZero();
			assertThat(names(stopped)).containsExactly("backoff.attempt", "backoff.call");
			assertThat(keys(stopped.get(0).getLowCardinalityKeyValues())).containsEntry("backoff.attempt.outcome",
					"retried");
			assertThat(keys(stopped.get(1).getLowCardinalityKeyValues())).containsEntry("backoff.outcome",
					"interrupted");
			// The caller stopped waiting: nothing failed.
			assertThat(stopped.get(1).getError()).isNull();
		});
	}

	@org.junit.jupiter.api.Test
	void aMonoCancelledDuringAnAttemptEndsThatAttemptFailedAndTheCallInterrupted() {
		this.contextRunner.run((context) -> {
			List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
			context.getBean(TestObservationRegistry.class).observationConfig().observationHandler(new Recorder(stopped));
			reactor.core.Disposable subscription = context.getBean(Service.class).hanging().subscribe();
			assertThat(stopped).isEmpty();
			subscription.dispose();
			assertThat(names(stopped)).containsExactly("backoff.attempt", "backoff.call");
			assertThat(keys(stopped.get(0).getLowCardinalityKeyValues())).containsEntry("backoff.attempt.outcome", "failed")
				.containsEntry("exception", "CancellationException");
			assertThat(keys(stopped.get(1).getLowCardinalityKeyValues())).containsEntry("backoff.outcome",
					"interrupted");
		});
	}

	private static List<String> documented(io.micrometer.common.docs.KeyName[] names) {
		return java.util.Arrays.stream(names).map(io.micrometer.common.docs.KeyName::asString).toList();
	}

	/**
	 * Calls the method of {@code kind} under a caller's observation, {@code failures} attempts
	 * failing first (-1: one failure that is not retryable), and checks the nesting common to
	 * every scenario: the call under the caller's observation, each attempt under the call, and
	 * each attempt the current observation while it runs (on the thread, and for Reactor in the
	 * subscriber context).
	 */
	private void run(Kind kind, int failures, BiFunction<Observed, Service, @Nullable Void> assertions) {
		this.contextRunner.run((context) -> {
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
			List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
			registry.observationConfig().observationHandler(new Recorder(stopped));
			Service service = context.getBean(Service.class);
			service.failFirst(failures);
			Observation caller = Observation.start("test.caller", registry);
			Observed observed = new Observed(stopped);
			try {
				observed.result = kind.call(service, caller, context.getBean(ManualScheduler.class));
			}
			catch (Throwable ex) {
				observed.failure = ex;
			}
			caller.stop();
			assertThat(stopped).last().satisfies((last) -> assertThat(last.getName()).isEqualTo("test.caller"));
			stopped.remove(stopped.size() - 1);
			Observation.Context call = stopped.get(stopped.size() - 1);
			assertThat(call.getName()).isEqualTo("backoff.call");
			assertThat(call.getParentObservation()).isSameAs(caller);
			List<Observation.Context> attempts = stopped.subList(0, stopped.size() - 1);
			assertThat(attempts).allSatisfy(
					(attempt) -> assertThat(attempt.getParentObservation().getContextView()).isSameAs(call));
			assertThat(service.current()).hasSameSizeAs(attempts);
			for (int i = 0; i < attempts.size(); i++) {
				assertThat(service.current().get(i).getContext()).isSameAs(attempts.get(i));
			}
			TestObservationRegistryAssert.assertThat(registry).doesNotHaveAnyRemainingCurrentObservation();
			assertions.apply(observed, service);
		});
	}

	private static void assertAttempt(Observation.Context attempt, Kind kind, int number, String outcome,
			String exception, @Nullable String delay) {
		assertThat(attempt.getName()).isEqualTo("backoff.attempt");
		assertThat(keys(attempt.getLowCardinalityKeyValues())).as("attempt %d", number)
			.containsExactlyInAnyOrderEntriesOf(Map.of("backoff.policy", "defaults", "backoff.method", kind.method,
					"backoff.attempt.outcome", outcome, "exception", exception));
		Map<String, String> high = (delay != null) ? Map.of("backoff.attempt", String.valueOf(number), "backoff.delay", delay)
				: Map.of("backoff.attempt", String.valueOf(number));
		assertThat(keys(attempt.getHighCardinalityKeyValues())).as("attempt %d", number)
			.containsExactlyInAnyOrderEntriesOf(high);
	}

	static Map<String, String> keys(KeyValues keyValues) {
		return keyValues.stream().collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
	}

	static List<String> names(List<Observation.Context> contexts) {
		return contexts.stream().map(Observation.Context::getName).toList();
	}

	/** The return types, each called the way its callers would. */
	enum Kind {

		BLOCKING("Service.blocking") {
			@Override
			@Nullable Object call(Service service, Observation caller, ManualScheduler scheduler) throws Throwable {
				Observation.Scope scope = caller.openScope();
				try {
					return service.blocking();
				}
				finally {
					scope.close();
				}
			}
		},

		COMPLETABLE_FUTURE("Service.future") {
			@Override
			@Nullable Object call(Service service, Observation caller, ManualScheduler scheduler) throws Throwable {
				CompletableFuture<String> future;
				Observation.Scope scope = caller.openScope();
				try {
					future = service.future();
				}
				finally {
					scope.close();
				}
				// The later attempts run on the scheduler's thread, where no observation is current.
				scheduler.runAll();
				try {
					return future.getNow(null);
				}
				catch (java.util.concurrent.CompletionException ex) {
					throw ex.getCause();
				}
			}
		},

		MONO("Service.mono") {
			@Override
			@Nullable Object call(Service service, Observation caller, ManualScheduler scheduler) throws Throwable {
				// The caller's observation only in the Reactor context, as Micrometer's Reactor support carries it.
				try {
					return service.mono()
						.contextWrite((context) -> context.put(ObservationThreadLocalAccessor.KEY, caller))
						.block(Duration.ofSeconds(10));
				}
				catch (RuntimeException ex) {
					throw reactor.core.Exceptions.unwrap(ex);
				}
			}
		},

		FLUX("Service.flux") {
			@Override
			@Nullable Object call(Service service, Observation caller, ManualScheduler scheduler) throws Throwable {
				try {
					return service.flux()
						.contextWrite((context) -> context.put(ObservationThreadLocalAccessor.KEY, caller))
						.blockLast(Duration.ofSeconds(10));
				}
				catch (RuntimeException ex) {
					throw reactor.core.Exceptions.unwrap(ex);
				}
			}
		};

		final String method;

		Kind(String method) {
			this.method = method;
		}

		abstract @Nullable Object call(Service service, Observation caller, ManualScheduler scheduler)
				throws Throwable;

	}

	static final class Observed {

		final List<Observation.Context> stopped;

		@Nullable Object result;

		@Nullable Throwable failure;

		Observed(List<Observation.Context> stopped) {
			this.stopped = stopped;
		}

	}

	/** Records the contexts of stopped observations, in the order they stop. */
	record Recorder(List<Observation.Context> stopped) implements ObservationHandler<Observation.Context> {

		@Override
		public void onStop(Observation.Context context) {
			this.stopped.add(context);
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

	/**
	 * Every method fails its first {@link #failures} attempts with an {@link IOException} (or
	 * once with an {@link IllegalStateException}, which is not retried, for -1), and records
	 * the observation current during each attempt.
	 */
	static class Service {

		private final ObservationRegistry registry;

		private final AtomicInteger attempts = new AtomicInteger();

		private final List<Observation> current = new CopyOnWriteArrayList<>();

		private volatile int failures;

		Service(TestObservationRegistry registry) {
			this.registry = registry;
		}

		// Public: called through the proxy, whose own fields are unset.
		public void failFirst(int failures) {
			this.failures = failures;
		}

		public List<Observation> current() {
			return this.current;
		}

		private String attempt(@Nullable Observation observation) throws IOException {
			if (observation != null) {
				this.current.add(observation);
			}
			int attempt = this.attempts.incrementAndGet();
			if (this.failures < 0) {
				throw new IllegalStateException("not retryable");
			}
			if (attempt <= this.failures) {
				throw new IOException("failure " + attempt);
			}
			return "ok " + attempt;
		}

		@Backoff(baseDelay = "100ms", jitter = Jitter.NONE, retryOn = IOException.class)
		public String blocking() throws IOException {
			return attempt(this.registry.getCurrentObservation());
		}

		@Backoff(baseDelay = "100ms", jitter = Jitter.NONE, retryOn = IOException.class)
		public CompletableFuture<String> future() {
			try {
				return CompletableFuture.completedFuture(attempt(this.registry.getCurrentObservation()));
			}
			catch (IOException ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}

		@Backoff(baseDelay = "100ms", jitter = Jitter.NONE, retryOn = IOException.class)
		public Mono<String> mono() {
			return Mono.deferContextual((context) -> Mono.fromCallable(
					() -> attempt(context.getOrDefault(ObservationThreadLocalAccessor.KEY, null))));
		}

		@Backoff
		public Mono<String> hanging() {
			return Mono.never();
		}

		@Backoff(baseDelay = "100ms", jitter = Jitter.NONE, retryOn = IOException.class)
		public Flux<String> flux() {
			return Flux.deferContextual((context) -> Mono
				.fromCallable(() -> attempt(context.getOrDefault(ObservationThreadLocalAccessor.KEY, null)))
				.flux());
		}

	}

	/** Calls {@link Service#blocking()} through its proxy from inside its own attempts. */
	static class Outer {

		private final Service service;

		Outer(Service service) {
			this.service = service;
		}

		@Backoff
		public String call() throws IOException {
			return this.service.blocking();
		}

	}

}
