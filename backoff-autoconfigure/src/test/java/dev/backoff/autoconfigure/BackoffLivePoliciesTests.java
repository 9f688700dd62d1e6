package dev.backoff.autoconfigure;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.RecordingSleeper;
import dev.backoff.RetryBudget;
import dev.backoff.Sleeper;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.PolicySettings;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.BackoffPolicies.SettingChange;
import dev.backoff.spring.metrics.BackoffPolicyMetrics;
import dev.backoff.spring.operation.BackoffOperationSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.entry;

/**
 * Policies changed while the application runs ({@link BackoffOperationSource#change},
 * {@link BackoffOperationSource#reset}, {@link BackoffOperationSource#rebind}): what calls
 * use afterwards and during, validation as at start-up, budgets, logging, and the refresh on
 * Spring Cloud's {@code EnvironmentChangeEvent}.
 */
@ExtendWith(OutputCaptureExtension.class)
class BackoffLivePoliciesTests {

	private final ApplicationContextRunner contexts = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, MetricsAutoConfiguration.class,
				BackoffMetricsAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withBean(Remote.class)
		.withPropertyValues("backoff.defaults.jitter=none", "backoff.policies.remote.max-attempts=3",
				"backoff.policies.remote.base-delay=100ms", "backoff.policies.other.base-delay=10ms");

	private final ApplicationContextRunner runner = this.contexts.withBean(RecordingSleeper.class);

	/** The waits of the call under way on each thread, for the calls made concurrently. */
	private static final ThreadLocal<List<Duration>> waits = ThreadLocal.withInitial(ArrayList::new);

	@Test
	void callsThatStartAfterAChangeUseIt() {
		this.runner.run((context) -> {
			Remote remote = context.getBean(Remote.class);
			assertThat(attempts(remote::fail, remote)).isEqualTo(3);
			Map<String, Map<String, SettingChange>> changes = source(context).change("remote",
					Map.of("maxAttempts", "1"));
			assertThat(changes).containsExactly(entry("remote", Map.of("maxAttempts", new SettingChange(3, 1))));
			assertThat(attempts(remote::fail, remote)).isEqualTo(1);
			assertThat(context.getBean(BackoffPolicies.class).getChanges("remote"))
				.containsExactly(entry("maxAttempts", new SettingChange(3, 1)));
			assertThat(context.getBean(BackoffPolicies.class).getChanges("other")).isEmpty();
		});
	}

	@Test
	void changesAddUpAndAResetReturnsToTheConfiguration() {
		this.runner.run((context) -> {
			Remote remote = context.getBean(Remote.class);
			RecordingSleeper sleeper = context.getBean(RecordingSleeper.class);
			source(context).change("remote", Map.of("maxAttempts", 2));
			source(context).change("remote", Map.of("baseDelay", "250ms"));
			assertThat(attempts(remote::fail, remote)).isEqualTo(2);
			assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(250));
			assertThat(source(context).reset("remote")).containsOnlyKeys("remote");
			assertThat(context.getBean(BackoffPolicies.class).getChanges("remote")).isEmpty();
			assertThat(attempts(remote::fail, remote)).isEqualTo(3);
			assertThat(sleeper.sleeps()).endsWith(Duration.ofMillis(100), Duration.ofMillis(200));
		});
	}

	@Test
	void annotationAttributesStillWinOverTheChangedPolicy() {
		this.runner.run((context) -> {
			Remote remote = context.getBean(Remote.class);
			RecordingSleeper sleeper = context.getBean(RecordingSleeper.class);
			source(context).change("remote", Map.of("maxAttempts", "5", "baseDelay", "50ms"));
			// @Backoff(maxAttempts = "2") keeps its 2 attempts, and takes the policy's new base delay.
			assertThat(attempts(remote::failTwice, remote)).isEqualTo(2);
			assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(50));
		});
	}

	@Test
	void anInvalidChangeChangesNothingAndNamesThePropertyTheValueAndTheRule() {
		this.runner.run((context) -> {
			assertThatExceptionOfType(BackoffConfigurationException.class)
				.isThrownBy(() -> source(context).change("remote", Map.of("maxAttempts", "1", "multiplier", "0.5")))
				.satisfies((ex) -> {
					assertThat(ex.getProperty()).isEqualTo("backoff.policies.remote.multiplier");
					assertThat(ex.getValue()).isEqualTo("0.5");
					assertThat(ex.getRule()).isEqualTo("must be a finite number of at least 1 (1 gives a fixed delay)");
				});
			assertThat(failingCall(context)).isEqualTo(3);
			assertThat(context.getBean(BackoffPolicies.class).getChanges("remote")).isEmpty();
		});
	}

	@Test
	void aValueThatDoesNotBindIsRefusedAsAtStartUp() {
		this.runner.run((context) -> assertThatExceptionOfType(BackoffConfigurationException.class)
			.isThrownBy(() -> source(context).change("remote", Map.of("jitter", "fullest")))
			.satisfies((ex) -> {
				assertThat(ex.getProperty()).isEqualTo("backoff.policies.remote.jitter");
				assertThat(ex.getValue()).isEqualTo("fullest");
				assertThat(ex.getRule()).isEqualTo("must be one of none, full, equal, decorrelated");
			}));
	}

	@Test
	void aChangeThatAnAnnotationNoLongerFitsIsRefusedNamingTheAttribute() {
		this.runner.run((context) -> {
			// @Backoff(baseDelay = "500ms") on Remote.slow: a max-delay below it breaks the rule there.
			assertThatExceptionOfType(BackoffConfigurationException.class)
				.isThrownBy(() -> source(context).change("remote", Map.of("maxDelay", "200ms")))
				.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("@Backoff(baseDelay) on Remote.slow"));
			assertThat(context.getBean(BackoffPolicies.class).get("remote").getSchedule().getMaxDelay())
				.isEqualTo(Duration.ofSeconds(20));
		});
	}

	@Test
	void anUnknownPolicyIsRefused() {
		this.runner.run((context) -> assertThatIllegalArgumentException()
			.isThrownBy(() -> source(context).change("nope", Map.of("maxAttempts", 1)))
			.withMessageContaining("No Backoff policy is named 'nope'"));
	}

	@Test
	void aTypoInAChangeNamesTheNearestPolicyOrSetting() {
		this.runner.run((context) -> {
			assertThatIllegalArgumentException().isThrownBy(() -> source(context).change("remot", Map.of("maxAttempts", 1)))
				.withMessageEndingWith(". Did you mean 'remote'?");
			assertThatExceptionOfType(BackoffConfigurationException.class)
				.isThrownBy(() -> source(context).change("remote", Map.of("maxAtempts", 1)))
				.satisfies((ex) -> assertThat(ex.getAction())
					.startsWith("Did you mean backoff.policies.remote.max-attempts? "));
		});
	}

	@Test
	void aChangeToTheDefaultsChangesThePoliciesThatInheritTheSetting() {
		this.runner.run((context) -> {
			Map<String, Map<String, SettingChange>> changes = source(context).change(BackoffPolicies.DEFAULTS,
					Map.of("maxAttempts", 2));
			// remote sets its own max-attempts; other inherits.
			assertThat(changes).containsOnlyKeys(BackoffPolicies.DEFAULTS, "other");
			BackoffPolicies policies = context.getBean(BackoffPolicies.class);
			assertThat(policies.get("other").getSchedule().getMaxAttempts()).isEqualTo(2);
			assertThat(policies.get("remote").getSchedule().getMaxAttempts()).isEqualTo(3);
		});
	}

	@Test
	void aCallInFlightFinishesUnderTheScheduleItStartedWith() {
		this.runner.run((context) -> {
			Remote remote = context.getBean(Remote.class);
			CountDownLatch entered = new CountDownLatch(1);
			CountDownLatch hold = new CountDownLatch(1);
			remote.hold(entered, hold);
			CompletableFuture<Integer> inFlight = CompletableFuture.supplyAsync(() -> attempts(remote::fail, remote));
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			source(context).change("remote", Map.of("maxAttempts", "1", "baseDelay", "1s"));
			hold.countDown();
			assertThat(inFlight.get(10, TimeUnit.SECONDS)).isEqualTo(3);
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).containsExactly(Duration.ofMillis(100),
					Duration.ofMillis(200));
			assertThat(attempts(remote::fail, remote)).isEqualTo(1);
		});
	}

	@Test
	void theBudgetKeepsItsTokensAndANewSizeKeepsTheFractionLeft() {
		this.runner.withPropertyValues("backoff.policies.remote.budget.max-tokens=20").run((context) -> {
			BackoffPolicies policies = context.getBean(BackoffPolicies.class);
			RetryBudget budget = policies.getBudget("remote");
			failingCall(context);
			assertThat(budget.getTokens()).isEqualTo(17.0);
			source(context).change("remote", Map.of("baseDelay", "10ms"));
			assertThat(policies.getBudget("remote")).isSameAs(budget);
			source(context).change("remote", Map.of("budget.maxTokens", 40, "budget.tokenRatio", "0.5"));
			RetryBudget resized = policies.getBudget("remote");
			assertThat(resized.getTokens()).isEqualTo(34.0);
			assertThat(resized.getTokenRatio()).isEqualTo(0.5);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get(BackoffPolicyMetrics.TOKENS).tag("policy", "remote").gauge().value())
				.isEqualTo(34.0);
			// The methods of the policy take from the budget in force.
			failingCall(context);
			assertThat(resized.getTokens()).isEqualTo(31.0);
			assertThat(budget.getTokens()).isEqualTo(17.0);
		});
	}

	@Test
	void theBudgetGaugeFollowsABudgetSwitchedOnAndOffAtRunTime() {
		this.runner.run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.find(BackoffPolicyMetrics.TOKENS).tag("policy", "remote").gauge()).isNull();
			source(context).change("remote", Map.of("budget.enabled", "true"));
			assertThat(registry.get(BackoffPolicyMetrics.TOKENS).tag("policy", "remote").gauge().value())
				.isEqualTo(context.getBean(BackoffPolicies.class).getBudget("remote").getMaxTokens());
			failingCall(context);
			assertThat(registry.get(BackoffPolicyMetrics.TOKENS).tag("policy", "remote").gauge().value())
				.isEqualTo(context.getBean(BackoffPolicies.class).getBudget("remote").getTokens());
			source(context).change("remote", Map.of("budget.enabled", "false"));
			assertThat(registry.find(BackoffPolicyMetrics.TOKENS).tag("policy", "remote").gauge()).isNull();
			source(context).reset("remote");
			assertThat(registry.find(BackoffPolicyMetrics.TOKENS).gauges()).isEmpty();
		});
	}

	@Test
	void theMaxDelayGaugeReadsEachPolicysMaxDelayInForce() {
		this.runner.withPropertyValues("backoff.policies.remote.max-delay=3s").run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get(BackoffPolicyMetrics.MAX_DELAY).tag("policy", "remote").timeGauge()
				.value(TimeUnit.SECONDS)).isEqualTo(3.0);
			assertThat(registry.get(BackoffPolicyMetrics.MAX_DELAY).tag("policy", "defaults").timeGauge()
				.value(TimeUnit.MILLISECONDS))
				.isEqualTo(context.getBean(BackoffPolicies.class).getDefaults().getSchedule().getMaxDelay().toMillis());
			source(context).change("remote", Map.of("maxDelay", "750ms"));
			assertThat(registry.get(BackoffPolicyMetrics.MAX_DELAY).tag("policy", "remote").timeGauge()
				.value(TimeUnit.MILLISECONDS)).isEqualTo(750.0);
		});
	}

	@Test
	void everyChangeIsLoggedAtInfoWithThePolicyAndTheChangedSettings(CapturedOutput output) {
		this.runner.run((context) -> {
			source(context).change("remote", Map.of("maxAttempts", "1", "jitter", "full"));
			source(context).reset("remote");
		});
		assertThat(output).contains(
				"INFO", "Backoff policy 'remote' changed by POST /actuator/backoff/remote: {maxAttempts=3 -> 1, jitter=none -> full}",
				"Backoff policy 'remote' changed by DELETE /actuator/backoff/remote: {maxAttempts=1 -> 3, jitter=full -> none}");
	}

	@Test
	void aRefreshBindsTheEnvironmentAnewWithTheSameValidationAndLogging(CapturedOutput output) {
		this.runner.run((context) -> {
			refresh(context, Map.of("backoff.policies.remote.max-attempts", "5"));
			assertThat(failingCall(context)).isEqualTo(5);
			assertThat(output).contains(
					"Backoff policy 'remote' changed by a configuration refresh: {maxAttempts=3 -> 5}");
			// Changes made through the endpoint stay over the refreshed configuration until reset.
			source(context).change("remote", Map.of("maxAttempts", "2"));
			refresh(context, Map.of("backoff.policies.remote.max-attempts", "4"));
			assertThat(failingCall(context)).isEqualTo(2);
			source(context).reset("remote");
			assertThat(failingCall(context)).isEqualTo(4);
		});
	}

	@Test
	void anInvalidRefreshKeepsThePoliciesAndLogsWhy(CapturedOutput output) {
		this.runner.run((context) -> {
			refresh(context, Map.of("backoff.policies.remote.max-attempts", "0"));
			assertThat(failingCall(context)).isEqualTo(3);
			assertThat(output).contains("WARN", "Backoff kept its policies: the refreshed configuration is invalid. "
					+ "backoff.policies.remote.max-attempts was '0', but must be at least 1");
			refresh(context, Map.of("backoff.policies.remote.max-attempts", "0", "backoff.policies.remote.base-delay",
					"soon"));
			assertThat(output).contains("backoff.policies.remote.base-delay was 'soon', but must be a duration");
			assertThat(failingCall(context)).isEqualTo(3);
			refresh(context, Map.of("backoff.policies.remote.max-atempts", "5"));
			assertThat(output).contains("backoff.policies.remote.max-atempts was '5', but is not a Backoff setting");
			assertThat(failingCall(context)).isEqualTo(3);
		});
	}

	@Test
	void aRefreshThatDropsAPolicyInUseIsRefused(CapturedOutput output) {
		this.runner.run((context) -> {
			// The environment no longer has backoff.policies.remote: only "other" stays.
			BackoffProperties properties = new BackoffProperties();
			properties.getPolicies().put("other", new PolicySettings());
			assertThatExceptionOfType(BackoffConfigurationException.class)
				.isThrownBy(() -> source(context).rebind(properties))
				.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("backoff.policies.remote"))
				.withMessageContaining("@Backoff names it on Remote.");
			assertThat(context.getBean(BackoffPolicies.class).getNames()).containsExactly("remote", "other");
		});
	}

	@Test
	void noRefreshWithoutSpringCloudContext() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(EnvironmentChangeEvent.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(BackoffRefreshListener.class));
	}

	@Test
	void everyCallEndsOnceUnderTheOldOrTheNewSettingsWhileThePolicyChanges() {
		Sleeper recordPerThread = (delay) -> waits.get().add(delay);
		this.contexts.withBean(Sleeper.class, () -> recordPerThread).run((context) -> {
			Remote remote = context.getBean(Remote.class);
			BackoffOperationSource source = source(context);
			Map<String, Object> first = Map.of("maxAttempts", 3, "baseDelay", "1ms");
			Map<String, Object> second = Map.of("maxAttempts", 2, "baseDelay", "7ms");
			Set<String> seen = ConcurrentHashMap.newKeySet();
			AtomicInteger calls = new AtomicInteger();
			AtomicInteger ended = new AtomicInteger();
			CountDownLatch changing = new CountDownLatch(1);
			List<CompletableFuture<Void>> callers = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				callers.add(CompletableFuture.runAsync(() -> {
					while (changing.getCount() > 0 || calls.get() < 100) {
						calls.incrementAndGet();
						waits.get().clear();
						int attempts = attempts(remote::fail, remote);
						ended.incrementAndGet();
						seen.add(attempts + " attempts, waits " + waits.get());
					}
				}));
			}
			for (int i = 0; i < 1000; i++) {
				source.change("remote", (i % 2 == 0) ? second : first);
			}
			changing.countDown();
			CompletableFuture.allOf(callers.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
			assertThat(seen).isSubsetOf("3 attempts, waits [PT0.001S, PT0.002S]", "2 attempts, waits [PT0.007S]",
					"3 attempts, waits [PT0.1S, PT0.2S]");
			assertThat(ended.get()).isEqualTo(calls.get());
			assertThat(context.getBean(MeterRegistry.class).get("backoff.calls").counters().stream()
				.mapToDouble((counter) -> counter.count()).sum()).isEqualTo(calls.get());
		});
	}

	/** Makes a call that fails every attempt. */
	private static int failingCall(ConfigurableApplicationContext context) {
		Remote remote = context.getBean(Remote.class);
		return attempts(remote::fail, remote);
	}

	/** @return the attempts of one call that fails every attempt */
	private static int attempts(Failing call, Remote remote) {
		remote.startCounting();
		try {
			call.run();
		}
		catch (IOException ex) {
			return remote.counted();
		}
		throw new AssertionError("The call did not fail");
	}

	private static BackoffOperationSource source(ConfigurableApplicationContext context) {
		return context.getBean(BackoffOperationSource.class);
	}

	private static void refresh(ConfigurableApplicationContext context, Map<String, Object> properties) {
		context.getEnvironment().getPropertySources().remove("refreshed");
		context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("refreshed", properties));
		context.publishEvent(new EnvironmentChangeEvent(Set.copyOf(properties.keySet())));
	}

	static class Remote {

		private final ThreadLocal<Integer> attempts = ThreadLocal.withInitial(() -> 0);

		private volatile CountDownLatch entered = new CountDownLatch(0);

		private volatile CountDownLatch hold = new CountDownLatch(0);

		@Backoff("remote")
		public void fail() throws IOException {
			this.attempts.set(this.attempts.get() + 1);
			this.entered.countDown();
			try {
				// Never waits unless a test holds the attempt: then until the test releases it.
				this.hold.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			throw new IOException("down");
		}

		@Backoff(value = "remote", maxAttempts = "2")
		public void failTwice() throws IOException {
			this.attempts.set(this.attempts.get() + 1);
			throw new IOException("down");
		}

		@Backoff(value = "remote", baseDelay = "500ms")
		public void slow() {
		}

		public void hold(CountDownLatch entered, CountDownLatch hold) {
			this.entered = entered;
			this.hold = hold;
		}

		public void startCounting() {
			this.attempts.set(0);
		}

		public int counted() {
			return this.attempts.get();
		}

	}

	@FunctionalInterface
	interface Failing {

		void run() throws IOException;

	}

}
