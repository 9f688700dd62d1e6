package dev.backoff.spring.operation;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

import dev.backoff.HedgeTokens;
import dev.backoff.ManualScheduler;
import dev.backoff.spring.BackoffConfiguration;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.metrics.BackoffMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Hedges paid when sent, through Spring: every named policy keeps a hedge bucket
 * ({@code hedge-max-extra-load}, 0.05 unless set) beside it, as its retry budget, so that a
 * slowdown that puts every call past its hedge delay no longer makes every call hedge; the
 * hedges the cap held back are counted ({@code backoff.hedges{event="held_back"}}). A
 * {@link ManualScheduler} holds every hedge timer.
 */
class HedgeCapTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class)
		.withBean(HedgedReads.class)
		.withPropertyValues("backoff.policies.reads.max-attempts=3");

	@Test
	void aSlowdownCanNoLongerMakeEveryCallHedgeWithNoSettingGiven() {
		ManualScheduler scheduler = new ManualScheduler();
		this.contextRunner.withAllowBeanDefinitionOverriding(true)
			.withBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, ScheduledExecutorService.class, () -> scheduler)
			.run((context) -> {
				HedgedReads reads = context.getBean(HedgedReads.class);
				slowCalls(reads, scheduler, 100);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				// The burst of 10, then 0.05 of a token per call after the first: 10 + 4.95. Before
				// the cap, each of the 100 calls sent its hedge.
				assertThat(hedges(registry, "sent")).isEqualTo(14);
				assertThat(hedges(registry, "held_back")).isEqualTo(86);
				assertThat(reads.futures()).hasSize(114);
				assertThat(registry.get(BackoffMetrics.CALLS).tag("method", "HedgedReads.future").tag("outcome", "success")
					.counter()
					.count()).isEqualTo(100);
			});
	}

	@Test
	void aMonoMethodIsCappedAlike() {
		ManualScheduler scheduler = new ManualScheduler();
		this.contextRunner.withAllowBeanDefinitionOverriding(true)
			.withBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, ScheduledExecutorService.class, () -> scheduler)
			.run((context) -> {
				HedgedReads reads = context.getBean(HedgedReads.class);
				for (int i = 0; i < 40; i++) {
					CompletableFuture<String> result = reads.mono().toFuture();
					scheduler.runNext();
					reads.sinks().get(reads.sinks().size() - 1).tryEmitValue("slow");
					assertThat(result).isCompletedWithValue("slow");
				}
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get(BackoffMetrics.HEDGES).tag("method", "HedgedReads.mono").tag("event", "sent")
					.counter()
					.count()).isEqualTo(11);
			});
	}

	@Test
	void hedgeMaxExtraLoadSetsTheShareAndChangesLiveKeepingTheTokens() {
		ManualScheduler scheduler = new ManualScheduler();
		this.contextRunner.withAllowBeanDefinitionOverriding(true)
			.withBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, ScheduledExecutorService.class, () -> scheduler)
			.withPropertyValues("backoff.policies.reads.hedge-max-extra-load=0.5")
			.run((context) -> {
				HedgedReads reads = context.getBean(HedgedReads.class);
				slowCalls(reads, scheduler, 100);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				// 10 + 0.5 × 99.
				assertThat(hedges(registry, "sent")).isEqualTo(59);
				BackoffPolicies policies = context.getBean(BackoffPolicies.class);
				HedgeTokens before = policies.getHedgeTokens("reads");
				assertThat(before.getMaxExtraLoad()).isEqualTo(0.5);
				BackoffOperationSource source = context.getBean(BackoffOperationSource.class);
				assertThat(source.change("reads", Map.of("hedgeMaxExtraLoad", 0.1))).containsOnlyKeys("reads");
				HedgeTokens after = policies.getHedgeTokens("reads");
				assertThat(after.getMaxExtraLoad()).isEqualTo(0.1);
				assertThat(after.getTokens()).isEqualTo(before.getTokens());
				slowCalls(reads, scheduler, 100);
				// The 0.5 left, then 0.1 a call: 0.5 + 10 tokens, 10 hedges more.
				assertThat(hedges(registry, "sent")).isEqualTo(69);
			});
	}

	@Test
	void everyNamedPolicyHasItsOwnBucketAndTheDefaultsTheirs() {
		this.contextRunner.withPropertyValues("backoff.defaults.hedge-max-extra-load=0.02",
				"backoff.policies.other.max-attempts=2")
			.run((context) -> {
				BackoffPolicies policies = context.getBean(BackoffPolicies.class);
				assertThat(policies.getHedgeTokens("reads").getMaxExtraLoad()).isEqualTo(0.02);
				assertThat(policies.getHedgeTokens("other").getMaxExtraLoad()).isEqualTo(0.02);
				assertThat(policies.getHedgeTokens("reads")).isNotSameAs(policies.getHedgeTokens("other"));
			});
	}

	@Test
	void aShareOutsideItsRangeStopsStartUpNamingTheProperty() {
		this.contextRunner.withPropertyValues("backoff.policies.reads.hedge-max-extra-load=0").run((context) -> {
			assertThat(context).hasFailed();
			BackoffConfigurationException failure = AttemptTimeoutTests.configurationFailure(context.getStartupFailure());
			assertThat(failure.getProperty()).isEqualTo("backoff.policies.reads.hedge-max-extra-load");
			assertThat(failure.getMessage()).startsWith("backoff.policies.reads.hedge-max-extra-load was '0.0', but "
					+ "must be at least 0.001 (tokens are kept to three decimals) and at most 4 (every call's most hedges)");
		});
	}

	@Test
	void aLiveChangeOutsideTheRangeIsRefusedNamingTheProperty() {
		this.contextRunner.run((context) -> {
			BackoffOperationSource source = context.getBean(BackoffOperationSource.class);
			assertThatExceptionOfType(BackoffConfigurationException.class)
				.isThrownBy(() -> source.change("reads", Map.of("hedgeMaxExtraLoad", 5)))
				.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("backoff.policies.reads.hedge-max-extra-load"));
			assertThat(context.getBean(BackoffPolicies.class).getHedgeTokens("reads").getMaxExtraLoad())
				.isEqualTo(HedgeTokens.DEFAULT_MAX_EXTRA_LOAD);
		});
	}

	/** Calls each slower than the hedge delay: the hedge timer fires before the answer. */
	private static void slowCalls(HedgedReads reads, ManualScheduler scheduler, int calls) {
		for (int i = 0; i < calls; i++) {
			CompletableFuture<String> result = reads.future();
			assertThat(scheduler.runNext()).isTrue();
			reads.futures().get(reads.futures().size() - 1).complete("slow");
			assertThat(result).isCompletedWithValue("slow");
		}
		assertThat(scheduler.pending()).isZero();
	}

	private static double hedges(MeterRegistry registry, String event) {
		return registry.get(BackoffMetrics.HEDGES).tag("method", "HedgedReads.future").tag("event", event).counter().count();
	}

}
