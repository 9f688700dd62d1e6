package dev.backoff.autoconfigure;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;

import dev.backoff.Backoff;
import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffPolicy;
import dev.backoff.ManualScheduler;
import dev.backoff.NanoClock;
import dev.backoff.Pacing;
import dev.backoff.RandomSource;
import dev.backoff.RecordingSleeper;
import dev.backoff.Sleeper;
import dev.backoff.spring.aop.BackoffAnnotationBeanPostProcessor;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.operation.BackoffOperationSource;
import dev.backoff.spring.operation.BackoffScheduler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.EnableScheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link BackoffAutoConfiguration}: the beans it contributes, the ones a user
 * replaces, and {@code backoff.enabled=false}.
 */
class BackoffAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class));

	@Test
	void defaultPolicyHasTheCoreDefaults() {
		this.contextRunner.run((context) -> {
			BackoffPolicy defaults = context.getBean(BackoffPolicies.class).getDefaults();
			assertThat(defaults.getSchedule().getMaxAttempts()).isEqualTo(BackoffPolicy.DEFAULT_MAX_ATTEMPTS);
			assertThat(defaults.getSchedule().getBaseDelay()).isEqualTo(BackoffPolicy.DEFAULT_BASE_DELAY);
			assertThat(defaults.getSchedule().getMaxDelay()).isEqualTo(BackoffPolicy.DEFAULT_MAX_DELAY);
			assertThat(defaults.getSchedule().getMultiplier()).isEqualTo(BackoffPolicy.DEFAULT_MULTIPLIER);
			assertThat(defaults.getSchedule().getJitter()).isEqualTo(BackoffPolicy.DEFAULT_JITTER);
			assertThat(defaults.getRules().getMaxElapsed()).isNull();
			assertThat(defaults.getRules().getRetryOn()).isEmpty();
			assertThat(defaults.getRules().getAbortOn()).isEmpty();
			assertThat(context.getBean(BackoffPolicies.class).getNames()).isEmpty();
		});
	}

	@Test
	void providesTheRealSleeperClockAndRandomSource() {
		this.contextRunner.run((context) -> {
			assertThat(context).getBean(Sleeper.class).isSameAs(Sleeper.THREAD);
			assertThat(context).getBean(NanoClock.class).isSameAs(NanoClock.SYSTEM);
			assertThat(context).getBean(RandomSource.class).isSameAs(RandomSource.THREAD_LOCAL);
			assertThat(context).hasSingleBean(BackoffExecutor.class);
			assertThat(context).hasSingleBean(BackoffOperationSource.class);
			assertThat(context).hasSingleBean(BackoffAnnotationBeanPostProcessor.class);
		});
	}

	@Test
	void providesABackoffSchedulerNamedBackoffScheduler() {
		this.contextRunner.run((context) -> assertThat(context)
			.getBean(BackoffAutoConfiguration.SCHEDULER_BEAN_NAME)
			.isInstanceOf(BackoffScheduler.class));
	}

	@Test
	void backoffSchedulerRunsOnNamedDaemonThreads() {
		this.contextRunner.run((context) -> {
			BackoffScheduler scheduler = context.getBean(BackoffScheduler.class);
			Thread thread = scheduler.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
			assertThat(thread.getName()).startsWith("backoff-");
			assertThat(thread.isDaemon()).isTrue();
		});
	}

	@Test
	void backoffSchedulerTakesItsPoolSizeAndThreadNamesFromTheProperties() {
		this.contextRunner
			.withPropertyValues("backoff.scheduler.pool-size=3", "backoff.scheduler.thread-name-prefix=retries-")
			.run((context) -> {
				BackoffScheduler scheduler = context.getBean(BackoffScheduler.class);
				assertThat(scheduler.getCorePoolSize()).isEqualTo(3);
				Thread thread = scheduler.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
				assertThat(thread.getName()).startsWith("retries-");
			});
	}

	@Test
	void backoffSchedulerDefaultsToOneThreadPerProcessorAndAtLeastTwo() {
		this.contextRunner.run((context) -> assertThat(context.getBean(BackoffScheduler.class).getCorePoolSize())
			.isEqualTo(Math.max(2, Runtime.getRuntime().availableProcessors())));
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21)
	void backoffSchedulerRunsOnVirtualThreadsWhenSpringThreadsAreVirtual() {
		this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=true").run((context) -> {
			BackoffScheduler scheduler = context.getBean(BackoffScheduler.class);
			Thread thread = scheduler.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
			assertThat(thread.getName()).startsWith("backoff-");
			assertThat(thread.getClass().getName()).isEqualTo("java.lang.VirtualThread");
		});
	}

	@Test
	void closingTheContextShutsTheBackoffSchedulerDown() {
		this.contextRunner.run((context) -> {
			BackoffScheduler scheduler = context.getBean(BackoffScheduler.class);
			context.close();
			assertThat(scheduler.isShutdown()).isTrue();
		});
	}

	@Test
	void proxiesABeanWithABackoffMethod() {
		this.contextRunner.withBean(Flaky.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(AopUtils.isAopProxy(context.getBean(Flaky.class))).isTrue();
		});
	}

	@Test
	void doesNotProxyABeanWithoutBackoff() {
		this.contextRunner.withBean(Plain.class)
			.run((context) -> assertThat(AopUtils.isAopProxy(context.getBean(Plain.class))).isFalse());
	}

	@Test
	void backsOffEntirelyWhenDisabled() {
		this.contextRunner.withPropertyValues("backoff.enabled=false").withBean(Flaky.class).run((context) -> {
			assertThat(context).doesNotHaveBean(BackoffAnnotationBeanPostProcessor.class);
			assertThat(context).doesNotHaveBean(BackoffOperationSource.class);
			assertThat(context).doesNotHaveBean(BackoffPolicies.class);
			assertThat(context).doesNotHaveBean(BackoffAutoConfiguration.SCHEDULER_BEAN_NAME);
			assertThat(AopUtils.isAopProxy(context.getBean(Flaky.class))).isFalse();
		});
	}

	@Test
	void callsGoStraightThroughWhenDisabled() {
		this.contextRunner.withPropertyValues("backoff.enabled=false")
			.withUserConfiguration(RecordingSleeperConfiguration.class)
			.withBean(Flaky.class)
			.run((context) -> {
				Flaky flaky = context.getBean(Flaky.class);
				flaky.failFirst(1);
				assertThatExceptionOfType(IOException.class).isThrownBy(flaky::call).withMessage("failure 1");
				assertThat(flaky.calls()).isEqualTo(1);
			});
	}

	@Test
	void ignoresInvalidPropertiesWhenDisabled() {
		this.contextRunner.withPropertyValues("backoff.enabled=false", "backoff.defaults.max-attempts=0")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void usesTheUserSleeper() {
		this.contextRunner.withUserConfiguration(RecordingSleeperConfiguration.class)
			.withPropertyValues("backoff.defaults.jitter=none")
			.withBean(Flaky.class)
			.run((context) -> {
				RecordingSleeper sleeper = context.getBean(RecordingSleeper.class);
				assertThat(context).getBean(Sleeper.class).isSameAs(sleeper);
				Flaky flaky = context.getBean(Flaky.class);
				flaky.failFirst(2);
				assertThat(flaky.call()).isEqualTo("ok");
				assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
			});
	}

	@Test
	void usesTheUserNanoClockToMeasureMaxElapsed() {
		// Each reading moves the clock 500ms: the second wait of 400ms would end past 1s.
		this.contextRunner.withUserConfiguration(RecordingSleeperConfiguration.class)
			.withBean(NanoClock.class, () -> new SteppingClock(Duration.ofMillis(500)))
			.withPropertyValues("backoff.defaults.max-attempts=10", "backoff.defaults.base-delay=400ms",
					"backoff.defaults.multiplier=1", "backoff.defaults.jitter=none", "backoff.defaults.max-elapsed=1s")
			.withBean(Flaky.class)
			.run((context) -> {
				Flaky flaky = context.getBean(Flaky.class);
				flaky.failFirst(100);
				assertThatExceptionOfType(IOException.class).isThrownBy(flaky::call).withMessage("failure 2");
				assertThat(flaky.calls()).isEqualTo(2);
				assertThat(context.getBean(RecordingSleeper.class).sleeps()).containsExactly(Duration.ofMillis(400));
			});
	}

	@Test
	void usesTheUserNanoClockForThePace() {
		// Each reading moves the clock 500ms: the second slot, one interval (2s) after the pace woke,
		// is two readings (1s) nearer by the time it is asked for.
		this.contextRunner.withBean(NanoClock.class, () -> new SteppingClock(Duration.ofMillis(500)))
			.withPropertyValues("backoff.defaults.pacing.enabled=true")
			.run((context) -> {
				Pacing pacing = context.getBean(BackoffPolicies.class).getEffective("defaults").controls().getPacing();
				pacing.onThrottled();
				long interval = (long) (1e9 / pacing.rate());
				assertThat(pacing.acquire()).isZero();
				assertThat(pacing.acquire()).isEqualTo(interval - Duration.ofSeconds(1).toNanos());
			});
	}

	@Test
	void usesTheUserRandomSource() {
		// Full jitter draws uniform(0, ceiling): 0.5 gives half of each ceiling.
		this.contextRunner.withUserConfiguration(RecordingSleeperConfiguration.class)
			.withBean(RandomSource.class, () -> () -> new FixedRandom(0.5))
			.withPropertyValues("backoff.defaults.jitter=full")
			.withBean(Flaky.class)
			.run((context) -> {
				Flaky flaky = context.getBean(Flaky.class);
				flaky.failFirst(2);
				assertThat(flaky.call()).isEqualTo("ok");
				assertThat(context.getBean(RecordingSleeper.class).sleeps()).containsExactly(Duration.ofMillis(50),
						Duration.ofMillis(100));
			});
	}

	@Test
	void usesTheUserBackoffExecutor() {
		RecordingSleeper executorSleeper = new RecordingSleeper();
		BackoffExecutor executor = BackoffExecutor.builder().sleeper(executorSleeper).build();
		this.contextRunner.withUserConfiguration(RecordingSleeperConfiguration.class)
			.withBean(BackoffExecutor.class, () -> executor)
			.withBean(Flaky.class)
			.run((context) -> {
				assertThat(context).getBean(BackoffExecutor.class).isSameAs(executor);
				Flaky flaky = context.getBean(Flaky.class);
				flaky.failFirst(1);
				assertThat(flaky.call()).isEqualTo("ok");
				assertThat(executorSleeper.sleeps()).hasSize(1);
				assertThat(context.getBean(RecordingSleeper.class).sleeps()).isEmpty();
			});
	}

	@Test
	void usesTheUserBeanNamedBackoffScheduler() {
		ManualScheduler scheduler = new ManualScheduler();
		this.contextRunner.withBean(BackoffAutoConfiguration.SCHEDULER_BEAN_NAME, ScheduledExecutorService.class,
				() -> scheduler)
			.withPropertyValues("backoff.defaults.jitter=none")
			.withBean(AsyncFlaky.class)
			.run((context) -> {
				assertThat(context).getBean(BackoffAutoConfiguration.SCHEDULER_BEAN_NAME).isSameAs(scheduler);
				assertThat(context).doesNotHaveBean(BackoffScheduler.class);
				AsyncFlaky flaky = context.getBean(AsyncFlaky.class);
				CompletableFuture<String> result = flaky.call();
				assertThat(result).isNotDone();
				assertThat(scheduler.delays()).containsExactly(Duration.ofMillis(100));
				scheduler.runAll();
				assertThat(result).isCompletedWithValue("ok");
				assertThat(flaky.calls()).isEqualTo(2);
			});
	}

	@Test
	void anAdmissionMaxRejectionOfOneStopsStartUpNamingThePropertyTheValueAndTheRule() {
		this.contextRunner
			.withPropertyValues("backoff.policies.quotes.admission.enabled=true",
					"backoff.policies.quotes.admission.max-rejection=1")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(new BackoffFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
					.contains("backoff.policies.quotes.admission.max-rejection", "1",
							"must be at least 0 and less than 1");
			});
	}

	@Test
	void loadsRetryOnTypesWithTheApplicationClassLoader() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(HiddenException.class))
			.withPropertyValues("backoff.defaults.retry-on=" + HiddenException.class.getName())
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(ClassNotFoundException.class);
				assertThat(new BackoffFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
					.contains("backoff.defaults.retry-on", HiddenException.class.getName(),
							"must name a class on the class path");
			});
	}

	@Test
	void retriesWithoutReactorOnTheClassPath() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("reactor."))
			.withUserConfiguration(RecordingSleeperConfiguration.class)
			.withBean(Flaky.class)
			.run((context) -> {
				Flaky flaky = context.getBean(Flaky.class);
				flaky.failFirst(1);
				assertThat(flaky.call()).isEqualTo("ok");
				assertThat(flaky.calls()).isEqualTo(2);
			});
	}

	@Test
	void leavesTheApplicationTaskExecutorInPlace() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class,
					TaskExecutionAutoConfiguration.class))
			.run((context) -> assertThat(context).hasBean("applicationTaskExecutor"));
	}

	@Test
	void leavesTheTaskSchedulerOfScheduledMethodsInPlace() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class,
					TaskSchedulingAutoConfiguration.class))
			.withUserConfiguration(SchedulingConfiguration.class)
			.run((context) -> assertThat(context).hasSingleBean(TaskScheduler.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class RecordingSleeperConfiguration {

		@Bean
		RecordingSleeper recordingSleeper() {
			return new RecordingSleeper();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class SchedulingConfiguration {

	}

	public static class Flaky {

		private final AtomicInteger calls = new AtomicInteger();

		private volatile int failures;

		public void failFirst(int failures) {
			this.failures = failures;
		}

		public int calls() {
			return this.calls.get();
		}

		@Backoff
		public String call() throws IOException {
			int call = this.calls.incrementAndGet();
			if (call <= this.failures) {
				throw new IOException("failure " + call);
			}
			return "ok";
		}

	}

	static class AsyncFlaky {

		private final AtomicInteger calls = new AtomicInteger();

		public int calls() {
			return this.calls.get();
		}

		@Backoff
		public CompletableFuture<String> call() {
			if (this.calls.incrementAndGet() == 1) {
				return CompletableFuture.failedFuture(new IOException("first"));
			}
			return CompletableFuture.completedFuture("ok");
		}

	}

	static class Plain {

		public String call() {
			return "plain";
		}

	}

	static class HiddenException extends RuntimeException {

	}

	/** A clock that moves forward by a fixed step on every reading. */
	static class SteppingClock implements NanoClock {

		private final long step;

		private long now;

		SteppingClock(Duration step) {
			this.step = step.toNanos();
		}

		@Override
		public synchronized long nanoTime() {
			this.now += this.step;
			return this.now;
		}

	}

	/** Always draws the same value. */
	record FixedRandom(double value) implements RandomGenerator {

		@Override
		public double nextDouble() {
			return this.value;
		}

		@Override
		public long nextLong() {
			throw new AssertionError("Only nextDouble() is expected");
		}

	}

}
