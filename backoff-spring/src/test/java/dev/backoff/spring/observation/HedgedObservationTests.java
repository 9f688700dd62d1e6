package dev.backoff.spring.observation;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;

import dev.backoff.ManualScheduler;
import dev.backoff.spring.BackoffConfiguration;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.operation.HedgedReads;
import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The observations of a hedged call, recorded by Micrometer's {@link TestObservationRegistry}
 * (which also checks that each is started and stopped once): every copy is a
 * {@code backoff.attempt} that ends with its own outcome when that copy ends: the winner
 * {@code success}, a loser {@code cancelled} as it is cancelled, a copy that fails while another
 * runs {@code failed} with its failure at once, and the last copy to fail {@code retried} as the
 * wait before the retry starts, not left open through it. A {@link ManualScheduler} holds every
 * hedge timer and wait.
 */
class HedgedObservationTests {

	private final ManualScheduler scheduler = new ManualScheduler();

	/** Each observation as it stops: name, attempt number, outcome, exception. */
	private final List<String> stopped = new CopyOnWriteArrayList<>();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class)
		.withBean(HedgedReads.class)
		.withAllowBeanDefinitionOverriding(true)
		.withBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, ScheduledExecutorService.class, () -> this.scheduler)
		.withBean(ObservationRegistry.class, () -> {
			TestObservationRegistry registry = TestObservationRegistry.create();
			registry.observationConfig().observationHandler(new Recorder(this.stopped));
			return registry;
		})
		.withPropertyValues("backoff.observations.enabled=true", "backoff.defaults.jitter=none",
				"backoff.defaults.base-delay=100ms", "backoff.policies.reads.max-attempts=3");

	@Test
	void theFirstCopyWinningEndsItsAttemptSuccessAndTheHedgeCancelled() {
		this.contextRunner.run((context) -> {
			HedgedReads reads = context.getBean(HedgedReads.class);
			CompletableFuture<String> result = reads.future();
			this.scheduler.runNext();
			reads.futures().get(0).complete("first");
			assertThat(result).isCompletedWithValue("first");
			assertThat(this.stopped).containsExactly("backoff.attempt 2 cancelled none",
					"backoff.attempt 1 success none", "backoff.call success");
			assertAllStopped(context);
		});
	}

	@Test
	void theFirstCopyOfAMonoWinningEndsItsAttemptSuccess() {
		this.contextRunner.run((context) -> {
			HedgedReads reads = context.getBean(HedgedReads.class);
			CompletableFuture<String> result = reads.mono().toFuture();
			this.scheduler.runNext();
			reads.sinks().get(0).tryEmitValue("first");
			assertThat(result).isCompletedWithValue("first");
			assertThat(this.stopped).containsExactly("backoff.attempt 2 cancelled none",
					"backoff.attempt 1 success none", "backoff.call success");
			assertAllStopped(context);
		});
	}

	@Test
	void aHedgeWinningEndsItsAttemptSuccessAndTheFirstCancelled() {
		this.contextRunner.run((context) -> {
			HedgedReads reads = context.getBean(HedgedReads.class);
			CompletableFuture<String> result = reads.future();
			this.scheduler.runNext();
			reads.futures().get(1).complete("second");
			assertThat(result).isCompletedWithValue("second");
			assertThat(this.stopped).containsExactly("backoff.attempt 1 cancelled none",
					"backoff.attempt 2 success none", "backoff.call success");
			assertAllStopped(context);
		});
	}

	@Test
	void eachFailedCopyEndsWithItsFailureWhenItFailsAndTheLastBeforeTheWait() {
		this.contextRunner.run((context) -> {
			HedgedReads reads = context.getBean(HedgedReads.class);
			CompletableFuture<String> result = reads.future();
			this.scheduler.runNext();
			reads.futures().get(1).completeExceptionally(new IOException("second copy"));
			// The hedge failed while the first copy runs on: its attempt ends now, with its failure.
			assertThat(this.stopped).containsExactly("backoff.attempt 2 failed IOException");
			reads.futures().get(0).completeExceptionally(new IllegalStateException("first copy"));
			// The last copy failed: its attempt ends as the wait starts, not after it.
			assertThat(this.scheduler.pending()).isOne();
			assertThat(this.stopped).containsExactly("backoff.attempt 2 failed IOException",
					"backoff.attempt 1 retried IllegalStateException");
			this.scheduler.runNext();
			reads.futures().get(2).complete("third");
			assertThat(result).isCompletedWithValue("third");
			assertThat(this.stopped).containsExactly("backoff.attempt 2 failed IOException",
					"backoff.attempt 1 retried IllegalStateException", "backoff.attempt 3 success none",
					"backoff.call success_after_retry");
			assertAllStopped(context);
		});
	}

	@Test
	void theFirstCopyFailingWhileTheHedgeRunsEndsFailedAndTheHedgeWins() {
		this.contextRunner.run((context) -> {
			HedgedReads reads = context.getBean(HedgedReads.class);
			CompletableFuture<String> result = reads.future();
			this.scheduler.runNext();
			reads.futures().get(0).completeExceptionally(new IOException("first copy"));
			assertThat(this.stopped).containsExactly("backoff.attempt 1 failed IOException");
			reads.futures().get(1).complete("second");
			assertThat(result).isCompletedWithValue("second");
			assertThat(this.stopped).containsExactly("backoff.attempt 1 failed IOException",
					"backoff.attempt 2 success none", "backoff.call success");
			assertAllStopped(context);
		});
	}

	/** Every observation started was stopped: as many as the recorder saw stop. */
	private void assertAllStopped(AssertableApplicationContext context) {
		TestObservationRegistry registry = (TestObservationRegistry) context.getBean(ObservationRegistry.class);
		TestObservationRegistryAssert.assertThat(registry)
			.hasNumberOfObservationsWithNameEqualTo("backoff.attempt",
					(int) this.stopped.stream().filter((stop) -> stop.startsWith("backoff.attempt ")).count())
			.hasNumberOfObservationsWithNameEqualTo("backoff.call", 1);
	}

	/** Records each observation as it stops, with the keys that tell its attempt and outcome. */
	private record Recorder(List<String> stopped) implements ObservationHandler<Observation.Context> {

		@Override
		public void onStop(Observation.Context context) {
			if (context instanceof BackoffAttemptObservationContext attempt) {
				this.stopped.add(context.getName() + " " + attempt.getAttempt() + " " + key(context, "backoff.attempt.outcome")
						+ " " + key(context, "exception"));
			}
			else {
				this.stopped.add(context.getName() + " " + key(context, "backoff.outcome"));
			}
		}

		private static String key(Observation.Context context, String name) {
			KeyValue keyValue = context.getLowCardinalityKeyValue(name);
			return (keyValue != null) ? keyValue.getValue() : "?";
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof BackoffObservationContext || context instanceof BackoffAttemptObservationContext;
		}

	}

}
