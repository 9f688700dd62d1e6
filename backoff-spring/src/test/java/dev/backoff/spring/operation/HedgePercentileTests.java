package dev.backoff.spring.operation;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;

import dev.backoff.Backoff;
import dev.backoff.ManualNanoClock;
import dev.backoff.ManualScheduler;
import dev.backoff.NanoClock;
import dev.backoff.spring.BackoffConfiguration;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.config.BackoffConfigurationException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.within;

/**
 * {@code hedge-percentile}: a method's hedge delay follows that percentile of its own recent
 * answer times, kept in Micrometer's time-window histogram, once it has answered 100 times;
 * {@code hedge-delay} before that and when it has not answered within the window. The executor's
 * clock is a {@link ManualNanoClock} that the test moves: each call answers after the time the
 * test chooses, and the {@link ManualScheduler} holds every hedge timer, its delay recorded.
 */
class HedgePercentileTests {

	private final ManualNanoClock clock = new ManualNanoClock();

	private final ManualScheduler scheduler = new ManualScheduler(this.clock);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class)
		.withBean(Reads.class)
		.withBean(NanoClock.class, () -> this.clock)
		.withAllowBeanDefinitionOverriding(true)
		.withBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, ScheduledExecutorService.class, () -> this.scheduler)
		.withPropertyValues("backoff.policies.reads.hedge-delay=50ms", "backoff.policies.reads.max-hedges=1",
				"backoff.policies.reads.hedge-percentile=95");

	@Test
	void aCompletableFutureMethodHedgesAtThePercentileOfItsAnswerTimesOnceItHasAnswered100Times() {
		this.contextRunner.run((context) -> {
			Reads reads = context.getBean(Reads.class);
			// Answers after 1ms, 2ms ... 100ms: until the 100th, the fixed hedge-delay.
			for (int millis = 1; millis <= 100; millis++) {
				answerAfter(Duration.ofMillis(millis), reads);
			}
			assertThat(this.scheduler.delays()).hasSize(100).containsOnly(Duration.ofMillis(50));
			answerAfter(Duration.ofMillis(10), reads);
			// p95 of 1..100ms: 95ms, within the histogram's two significant digits.
			assertThat(lastDelay().toNanos()).isCloseTo(Duration.ofMillis(95).toNanos(),
					within(Duration.ofMillis(1).toNanos()));
		});
	}

	@Test
	void aMonoMethodHedgesAtThePercentileToo() {
		this.contextRunner.run((context) -> {
			Reads reads = context.getBean(Reads.class);
			for (int i = 0; i < 100; i++) {
				CompletableFuture<String> result = reads.mono().toFuture();
				this.clock.advance(Duration.ofMillis(20));
				reads.sinks().get(reads.sinks().size() - 1).tryEmitValue("answer");
				assertThat(result).isCompletedWithValue("answer");
			}
			reads.mono().subscribe();
			assertThat(lastDelay().toNanos()).isCloseTo(Duration.ofMillis(20).toNanos(),
					within(Duration.ofMillis(1).toNanos()));
		});
	}

	@Test
	void aHedgeThatWinsCountsTheTimeFromTheFirstCopySoTheSlowTailKeepsThePercentileUp() {
		this.contextRunner.run((context) -> {
			Reads reads = context.getBean(Reads.class);
			for (int i = 0; i < 100; i++) {
				// Every call's first copy hangs: its hedge, sent at 50ms, answers 10ms later.
				CompletableFuture<String> result = reads.future();
				assertThat(this.scheduler.runNext()).isTrue();
				this.clock.advance(Duration.ofMillis(10));
				reads.futures().get(reads.futures().size() - 1).complete("hedge");
				assertThat(result).isCompletedWithValue("hedge");
			}
			reads.future();
			// 60ms, not the hedge's own 10ms: hedging after 10ms would send a copy for every call.
			assertThat(lastDelay().toNanos()).isCloseTo(Duration.ofMillis(60).toNanos(),
					within(Duration.ofMillis(1).toNanos()));
		});
	}

	@Test
	void withoutAnswersInTheLastMinuteTheFixedHedgeDelayAppliesAgain() {
		this.contextRunner.run((context) -> {
			Reads reads = context.getBean(Reads.class);
			for (int i = 0; i < 100; i++) {
				answerAfter(Duration.ofMillis(20), reads);
			}
			answerAfter(Duration.ofMillis(20), reads);
			assertThat(lastDelay().toNanos()).isCloseTo(Duration.ofMillis(20).toNanos(), within(Duration.ofMillis(1).toNanos()));
			this.clock.advance(Duration.ofSeconds(61));
			answerAfter(Duration.ofMillis(20), reads);
			assertThat(lastDelay()).isEqualTo(Duration.ofMillis(50));
		});
	}

	@Test
	void aLiveChangeToAnotherPercentileStartsItsTimesOver() {
		this.contextRunner.run((context) -> {
			Reads reads = context.getBean(Reads.class);
			for (int i = 0; i < 101; i++) {
				answerAfter(Duration.ofMillis(20), reads);
			}
			assertThat(lastDelay().toNanos()).isCloseTo(Duration.ofMillis(20).toNanos(), within(Duration.ofMillis(1).toNanos()));
			BackoffOperationSource source = context.getBean(BackoffOperationSource.class);
			source.change("reads", Map.of("hedgePercentile", 99));
			answerAfter(Duration.ofMillis(20), reads);
			assertThat(lastDelay()).isEqualTo(Duration.ofMillis(50));
			assertThat(source.getPolicies().get("reads").getHedging().getPercentile()).isEqualTo(99.0);
		});
	}

	@Test
	void anInvalidPercentileStopsStartUpNamingThePropertyTheValueAndTheRule() {
		this.contextRunner.withPropertyValues("backoff.policies.reads.hedge-percentile=40").run((context) -> {
			assertThat(context).hasFailed();
			BackoffConfigurationException failure = AttemptTimeoutTests.configurationFailure(context.getStartupFailure());
			assertThat(failure.getProperty()).isEqualTo("backoff.policies.reads.hedge-percentile");
			assertThat(failure.getMessage()).startsWith(
					"backoff.policies.reads.hedge-percentile was '40.0', but must be at least 50 and below 100");
		});
	}

	@Test
	void aPercentileWrittenAsP95OnTheAnnotationStopsStartUpSayingWhatToWrite() {
		new ApplicationContextRunner().withUserConfiguration(EnabledBackoff.class)
			.withBean(P95.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				BackoffConfigurationException failure = AttemptTimeoutTests
					.configurationFailure(context.getStartupFailure());
				assertThat(failure.getProperty()).isEqualTo("@Backoff(hedgePercentile) on P95.fetch");
				assertThat(failure.getMessage()).contains("'p95'").contains("a number such as 95");
			});
	}

	@Test
	void aLiveChangeToAnInvalidPercentileIsRefusedAndChangesNothing() {
		this.contextRunner.run((context) -> {
			context.getBean(Reads.class).future().complete("warm");
			BackoffOperationSource source = context.getBean(BackoffOperationSource.class);
			assertThatExceptionOfType(BackoffConfigurationException.class)
				.isThrownBy(() -> source.change("reads", Map.of("hedgePercentile", 100)))
				.withMessageContaining("must be at least 50 and below 100");
			assertThat(source.getPolicies().get("reads").getHedging().getPercentile()).isEqualTo(95.0);
		});
	}

	private void answerAfter(Duration time, Reads reads) {
		CompletableFuture<String> result = reads.future();
		this.clock.advance(time);
		reads.futures().get(reads.futures().size() - 1).complete("answer");
		assertThat(result).isCompletedWithValue("answer");
	}

	private Duration lastDelay() {
		List<Duration> delays = this.scheduler.delays();
		return delays.get(delays.size() - 1);
	}

	static class Reads {

		// Read through methods: the test holds the proxy, whose own fields are unset.
		private final List<CompletableFuture<String>> futures = new CopyOnWriteArrayList<>();

		private final List<Sinks.One<String>> sinks = new CopyOnWriteArrayList<>();

		public List<CompletableFuture<String>> futures() {
			return this.futures;
		}

		public List<Sinks.One<String>> sinks() {
			return this.sinks;
		}

		@Backoff("reads")
		public CompletableFuture<String> future() {
			CompletableFuture<String> future = new CompletableFuture<>();
			this.futures.add(future);
			return future;
		}

		@Backoff("reads")
		public Mono<String> mono() {
			return Mono.defer(() -> {
				Sinks.One<String> sink = Sinks.one();
				this.sinks.add(sink);
				return sink.asMono();
			});
		}

	}

	static class P95 {

		@Backoff(hedgeDelay = "50ms", maxHedges = "1", hedgePercentile = "p95")
		public CompletableFuture<String> fetch() {
			return CompletableFuture.completedFuture("ok");
		}

	}

}
