package dev.backoff.spring.operation;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.ManualScheduler;
import dev.backoff.RecordingSleeper;
import dev.backoff.spring.BackoffConfiguration;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.ScriptedFailures;
import dev.backoff.spring.operation.BackoffScheduler;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@code @Backoff} methods that return a {@link CompletableFuture} or a
 * {@link CompletionStage}: retried on the scheduler without blocking a thread, with the
 * original failure, cancellation and shutdown.
 */
class AsyncRetryTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(RecordingSleeper.class)
		.withBean(AsyncService.class);

	@Test
	void completableFutureFailsTwiceThenSucceedsOnTheBackoffScheduler() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			service.failFirst(2);
			CompletableFuture<String> result = service.future();
			assertThat(result).succeedsWithin(TIMEOUT).isEqualTo("ok 3");
			assertThat(service.threads()).hasSize(3);
			assertThat(service.threads().get(0)).isEqualTo(Thread.currentThread().getName());
			assertThat(service.threads().subList(1, 3)).allSatisfy((name) -> assertThat(name).startsWith("backoff-"));
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).isEmpty();
		});
	}

	@Test
	void completionStageFailsTwiceThenSucceedsOnTheBackoffScheduler() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			service.failFirst(2);
			CompletionStage<String> result = service.stage();
			assertThat(result).succeedsWithin(TIMEOUT).isEqualTo("ok 3");
			assertThat(service.threads().subList(1, 3)).allSatisfy((name) -> assertThat(name).startsWith("backoff-"));
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).isEmpty();
		});
	}

	@Test
	void schedulesEveryRetryOnTheSchedulerWithThePolicyDelays() {
		ManualScheduler scheduler = new ManualScheduler();
		this.contextRunner
			.withAllowBeanDefinitionOverriding(true)
			.withBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, ScheduledExecutorService.class, () -> scheduler)
			.run((context) -> {
				AsyncService service = context.getBean(AsyncService.class);
				service.failFirst(2);
				CompletableFuture<String> result = service.slow();
				assertThat(result).isNotDone();
				assertThat(service.calls()).isEqualTo(1);
				assertThat(scheduler.delays()).containsExactly(Duration.ofMillis(100));
				assertThat(scheduler.runNext()).isTrue();
				assertThat(result).isNotDone();
				assertThat(scheduler.delays()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
				assertThat(scheduler.runNext()).isTrue();
				assertThat(result).isCompletedWithValue("ok 3");
				assertThat(service.onManualScheduler()).containsExactly(false, true, true);
				assertThat(context.getBean(RecordingSleeper.class).sleeps()).isEmpty();
			});
	}

	@Test
	void retriesAMethodThatThrowsInsteadOfReturningAFailedFuture() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			service.failFirst(2);
			CompletableFuture<String> result = service.throwing();
			assertThat(result).succeedsWithin(TIMEOUT).isEqualTo("ok 3");
			assertThat(service.calls()).isEqualTo(3);
		});
	}

	@Test
	void completesWithTheOriginalFailureWhenAttemptsRunOut() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			service.failFirst(100);
			CompletableFuture<String> result = service.future();
			Throwable failure = result.handle((value, ex) -> ex).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
			assertThat(failure).isNotInstanceOf(CompletionException.class)
				.isExactlyInstanceOf(IOException.class)
				.hasMessage("failure 3")
				.isSameAs(service.failures().get(2));
			assertThat(failure.getSuppressed()).containsExactly(service.failures().get(0), service.failures().get(1));
			assertThat(service.calls()).isEqualTo(3);
		});
	}

	@Test
	void completesWithTheOriginalFailureOfAMethodThatThrows() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			service.failFirst(100);
			CompletableFuture<String> result = service.throwing();
			Throwable failure = result.handle((value, ex) -> ex).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
			assertThat(failure).isSameAs(service.failures().get(2));
		});
	}

	@Test
	void doesNotRetryAFailureThatIsNotRetryable() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			service.failFirst(100);
			service.failWithError();
			CompletableFuture<String> result = service.future();
			Throwable failure = result.handle((value, ex) -> ex).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
			assertThat(failure).isExactlyInstanceOf(AssertionError.class);
			assertThat(service.calls()).isEqualTo(1);
		});
	}

	@Test
	void cancellingTheFutureStopsLaterAttempts() {
		ManualScheduler scheduler = new ManualScheduler();
		this.contextRunner
			.withAllowBeanDefinitionOverriding(true)
			.withBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, ScheduledExecutorService.class, () -> scheduler)
			.run((context) -> {
				AsyncService service = context.getBean(AsyncService.class);
				service.failFirst(100);
				CompletableFuture<String> result = service.slow();
				assertThat(scheduler.pending()).isOne();
				assertThat(result.cancel(false)).isTrue();
				assertThat(result).isCancelled();
				assertThat(scheduler.pending()).isZero();
				assertThat(scheduler.runAll()).isZero();
				assertThat(service.calls()).isEqualTo(1);
			});
	}

	@Test
	void cancellingTheFutureLeavesTheMethodsOwnFutureAlone() {
		// The method's future may be shared with other callers (a cached one): not ours to cancel.
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CompletableFuture<String> result = service.neverCompletes();
			CompletableFuture<String> attempt = service.inFlight().get(0);
			assertThat(attempt).isNotDone();
			assertThat(result.cancel(true)).isTrue();
			assertThat(result).isCancelled();
			assertThat(attempt).isNotDone();
			assertThat(service.calls()).isEqualTo(1);
		});
	}

	@Test
	void cancellingTheFutureRemovesThePendingRetryFromTheBackoffScheduler() {
		this.contextRunner.run((context) -> {
			BackoffScheduler scheduler = scheduler(context);
			AsyncService service = context.getBean(AsyncService.class);
			CompletableFuture<String> result = failingHourly(service);
			assertThat(scheduler.getQueue()).hasSize(1);
			assertThat(result.cancel(true)).isTrue();
			assertThat(scheduler.getQueue()).isEmpty();
			assertThat(scheduler.getCompletedTaskCount()).isZero();
			assertThat(service.calls()).isEqualTo(1);
		});
	}

	@Test
	void closingTheContextEndsAPendingCallWithItsOriginalFailure() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CompletableFuture<String> result = failingHourly(service);
			assertThat(result).isNotDone();
			context.close();
			assertThat(result).isCompletedExceptionally();
			Throwable failure = failureOf(result);
			assertThat(failure).isSameAs(service.failures().get(0));
			assertThat(failure.getSuppressed()).hasAtLeastOneElementOfType(RejectedExecutionException.class);
			assertThat(service.calls()).isEqualTo(1);
		});
	}

	@Test
	void aRetryTheSchedulerDropsAsItShutsDownStillEndsItsCall() {
		// ScheduledThreadPoolExecutor.delayedExecute: a retry scheduled just as the executor shuts
		// down is queued, then removed and cancelled by the executor itself, never rejected. The
		// removal is simulated here, after shutdown, on the queued retry.
		this.contextRunner.run((context) -> {
			BackoffScheduler scheduler = scheduler(context);
			AsyncService service = context.getBean(AsyncService.class);
			CompletableFuture<String> result = failingHourly(service);
			Runnable queued = scheduler.getQueue().peek();
			scheduler.shutdown();
			assertThat(scheduler.remove(queued)).isTrue();
			assertThat(result).isCompletedExceptionally();
			assertThat(failureOf(result)).isSameAs(service.failures().get(0));
			assertThat(service.calls()).isEqualTo(1);
		});
	}

	@Test
	void aRetryATimerThreadHoldsAsTheSchedulerShutsDownStillEndsItsCall() {
		// ScheduledFutureTask.run(): a retry a timer thread has taken off the queue when the
		// executor stops cancels itself instead of running. The timer thread is held between
		// the two here, while the scheduler shuts down.
		CountDownLatch taken = new CountDownLatch(1);
		CountDownLatch shutDown = new CountDownLatch(1);
		this.contextRunner.withAllowBeanDefinitionOverriding(true)
			.withBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, BackoffScheduler.class,
				() -> new BackoffScheduler(1, Executors.defaultThreadFactory()) {

					@Override
					protected void beforeExecute(Thread thread, Runnable task) {
						taken.countDown();
						awaitUninterruptibly(shutDown);
					}

				})
			.run((context) -> {
				BackoffScheduler scheduler = scheduler(context);
				AsyncService service = context.getBean(AsyncService.class);
				service.failFirst(100);
				CompletableFuture<String> result = service.future();
				assertThat(taken.await(10, TimeUnit.SECONDS)).isTrue();
				assertThat(scheduler.shutdownNow()).isEmpty();
				assertThat(result).isNotDone();
				shutDown.countDown();
				assertThat(scheduler.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
				assertThat(result).isCompletedExceptionally();
				assertThat(failureOf(result)).isSameAs(service.failures().get(0));
				assertThat(service.calls()).isEqualTo(1);
			});
	}

	@Test
	void callsTheFallbackWithTheOriginalFailure() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			service.failFirst(100);
			CompletableFuture<String> result = service.withFallback("42");
			assertThat(result).succeedsWithin(TIMEOUT).isEqualTo("fallback 42 after failure 3");
			assertThat(service.fallbackFailures()).singleElement().isSameAs(service.failures().get(2));
			assertThat(service.calls()).isEqualTo(3);
		});
	}

	@Test
	void doesNotCallTheFallbackWhenTheCallerCancels() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			service.failFirst(100);
			CompletableFuture<String> result = service.hourlyWithFallback("42");
			assertThat(result.cancel(true)).isTrue();
			assertThat(result).isCancelled();
			assertThat(service.fallbackFailures()).isEmpty();
		});
	}

	@Test
	void doesNotCallTheFallbackOnSuccess() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			service.failFirst(1);
			assertThat(service.withFallback("42")).succeedsWithin(TIMEOUT).isEqualTo("ok 2");
			assertThat(service.fallbackFailures()).isEmpty();
		});
	}

	@Test
	void pollsWithRetryIfUntilTheResultIsReady() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			service.readyAfter(3);
			assertThat(service.poll()).succeedsWithin(TIMEOUT).isEqualTo("READY");
			assertThat(service.calls()).isEqualTo(3);
		});
	}

	@Test
	void returnsTheLastResultWhenRetryIfStillMatchesAsAttemptsRunOut() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			service.readyAfter(100);
			assertThat(service.poll()).succeedsWithin(TIMEOUT).isEqualTo("NOT_READY");
			assertThat(service.calls()).isEqualTo(3);
		});
	}

	@Test
	void completesWhenRetryIfCannotBeEvaluated() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CompletableFuture<Job> result = service.pollNull();
			assertThat(result).isDone();
			assertThat(service.calls()).isEqualTo(1);
		});
	}

	record Job(String status) {

	}

	private static BackoffScheduler scheduler(ApplicationContext context) {
		return context.getBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, BackoffScheduler.class);
	}

	/** Starts a call whose first attempt fails and whose retry waits an hour on the scheduler. */
	private static CompletableFuture<String> failingHourly(AsyncService service) {
		service.failFirst(100);
		return service.hourly();
	}

	/** Waits through shutdownNow()'s interrupt, which it restores once the latch opens. */
	private static void awaitUninterruptibly(CountDownLatch latch) {
		boolean interrupted = false;
		while (latch.getCount() > 0) {
			try {
				latch.await();
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	private static Throwable failureOf(CompletableFuture<?> result) {
		return result.handle((value, ex) -> ex).getNow(null);
	}

	static class AsyncService extends ScriptedFailures {

		private final AtomicInteger calls = new AtomicInteger();

		private final List<String> threads = new CopyOnWriteArrayList<>();

		private final List<Boolean> onManualScheduler = new CopyOnWriteArrayList<>();

		private final List<CompletableFuture<String>> inFlight = new CopyOnWriteArrayList<>();

		public int calls() {
			return this.calls.get();
		}

		public List<String> threads() {
			return this.threads;
		}

		public List<Boolean> onManualScheduler() {
			return this.onManualScheduler;
		}

		public List<CompletableFuture<String>> inFlight() {
			return this.inFlight;
		}

		@Backoff(baseDelay = "0ms", maxDelay = "0ms")
		public CompletableFuture<String> future() {
			return attempt();
		}

		@Backoff(baseDelay = "0ms", maxDelay = "0ms")
		public CompletionStage<String> stage() {
			return attempt();
		}

		@Backoff(baseDelay = "0ms", maxDelay = "0ms")
		public CompletableFuture<String> throwing() throws IOException {
			return CompletableFuture.completedFuture(next());
		}

		@Backoff(baseDelay = "100ms", multiplier = "2", jitter = Jitter.NONE)
		public CompletableFuture<String> slow() {
			return attempt();
		}

		@Backoff(baseDelay = "1h", maxDelay = "1h", jitter = Jitter.NONE)
		public CompletableFuture<String> hourly() {
			return attempt();
		}

		@Backoff
		public CompletableFuture<String> neverCompletes() {
			this.calls.incrementAndGet();
			CompletableFuture<String> attempt = new CompletableFuture<>();
			this.inFlight.add(attempt);
			return attempt;
		}

		@Backoff(baseDelay = "0ms", maxDelay = "0ms", fallback = "recover")
		public CompletableFuture<String> withFallback(String id) {
			return attempt();
		}

		@Backoff(baseDelay = "1h", maxDelay = "1h", jitter = Jitter.NONE, fallback = "recover")
		public CompletableFuture<String> hourlyWithFallback(String id) {
			return attempt();
		}

		CompletableFuture<String> recover(String id, Throwable failure) {
			fellBack(failure);
			return CompletableFuture.completedFuture("fallback " + id + " after " + failure.getMessage());
		}

		@Backoff(baseDelay = "0ms", maxDelay = "0ms", retryIf = "#result == 'NOT_READY'")
		public CompletableFuture<String> poll() {
			int call = this.calls.incrementAndGet();
			return CompletableFuture.completedFuture(isReady(call) ? "READY" : "NOT_READY");
		}

		@Backoff(baseDelay = "0ms", maxDelay = "0ms", retryIf = "#result.status == 'NOT_READY'")
		public CompletableFuture<Job> pollNull() {
			this.calls.incrementAndGet();
			return CompletableFuture.completedFuture(null);
		}

		private CompletableFuture<String> attempt() {
			try {
				return CompletableFuture.completedFuture(next());
			}
			catch (IOException | AssertionError ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}

		private String next() throws IOException {
			int call = this.calls.incrementAndGet();
			this.threads.add(Thread.currentThread().getName());
			this.onManualScheduler.add(ManualScheduler.isRunningTask());
			Throwable failure = failureOf(call);
			if (failure instanceof IOException ex) {
				throw ex;
			}
			if (failure != null) {
				throw (AssertionError) failure;
			}
			return "ok " + call;
		}

	}

}
