package dev.backoff.spring.aop;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.BackoffPolicy;
import dev.backoff.Jitter;
import dev.backoff.RecordingSleeper;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.operation.BackoffOperation;
import dev.backoff.spring.operation.BackoffOperationSource;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for how a {@link Backoff @Backoff} annotation picks its policy and overrides it: the
 * named policy, the attributes, placeholders, and type-level against method-level.
 */
class BackoffAnnotationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(RecordingSleeper.class);

	@Test
	void annotationAttributesOverrideThePolicy() {
		this.contextRunner.withBean(Overrides.class).run((context) -> {
			BackoffOperation operation = operation(context, "Overrides.call");
			BackoffPolicy policy = operation.getPolicy();
			assertThat(operation.getPolicyName()).isEqualTo(BackoffPolicies.DEFAULTS);
			assertThat(policy.getSchedule().getMaxAttempts()).isEqualTo(5);
			assertThat(policy.getSchedule().getBaseDelay()).isEqualTo(Duration.ofMillis(200));
			assertThat(policy.getSchedule().getMaxDelay()).isEqualTo(Duration.ofSeconds(5));
			assertThat(policy.getSchedule().getMultiplier()).isEqualTo(1.5);
			assertThat(policy.getSchedule().getJitter()).isEqualTo(Jitter.EQUAL);
			assertThat(policy.getRules().getMaxElapsed()).isEqualTo(Duration.ofSeconds(30));
			assertThat(policy.getRules().getRetryOn()).containsExactly(IOException.class);
			assertThat(policy.getRules().getAbortOn()).containsExactly(FileNotFoundException.class);
		});
	}

	@Test
	void annotationKeepsWhatItDoesNotOverride() {
		this.contextRunner.withPropertyValues("backoff.defaults.max-delay=7s", "backoff.defaults.jitter=none")
			.withBean(Overrides.class)
			.run((context) -> {
				BackoffPolicy policy = operation(context, "Overrides.attemptsOnly").getPolicy();
				assertThat(policy.getSchedule().getMaxAttempts()).isEqualTo(2);
				assertThat(policy.getSchedule().getMaxDelay()).isEqualTo(Duration.ofSeconds(7));
				assertThat(policy.getSchedule().getJitter()).isEqualTo(Jitter.NONE);
				assertThat(policy.getSchedule().getBaseDelay()).isEqualTo(BackoffPolicy.DEFAULT_BASE_DELAY);
			});
	}

	@Test
	void annotationOverridesChangeTheSleeps() {
		this.contextRunner.withBean(Overrides.class).run((context) -> {
			Overrides overrides = context.getBean(Overrides.class);
			assertThatIllegalStateException().isThrownBy(overrides::fixed);
			assertThat(overrides.calls()).isEqualTo(4);
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).containsExactly(Duration.ofMillis(30),
					Duration.ofMillis(30), Duration.ofMillis(30));
		});
	}

	@Test
	void resolvesPlaceholdersInAttributes() {
		this.contextRunner.withPropertyValues("my.attempts=4", "my.base-delay=75ms")
			.withBean(Placeholders.class)
			.run((context) -> {
				BackoffPolicy policy = operation(context, "Placeholders.call").getPolicy();
				assertThat(policy.getSchedule().getMaxAttempts()).isEqualTo(4);
				assertThat(policy.getSchedule().getBaseDelay()).isEqualTo(Duration.ofMillis(75));
			});
	}

	@Test
	void resolvesAPlaceholderInThePolicyName() {
		this.contextRunner.withPropertyValues("my.policy=quotes", "backoff.policies.quotes.max-attempts=8")
			.withBean(PlaceholderPolicy.class)
			.run((context) -> {
				BackoffOperation operation = operation(context, "PlaceholderPolicy.call");
				assertThat(operation.getPolicyName()).isEqualTo("quotes");
				assertThat(operation.getPolicy().getSchedule().getMaxAttempts()).isEqualTo(8);
			});
	}

	@Test
	void namesThePolicyWithValue() {
		this.contextRunner.withPropertyValues("backoff.policies.quotes.max-attempts=6")
			.withBean(Named.class)
			.run((context) -> {
				BackoffOperation operation = operation(context, "Named.byValue");
				assertThat(operation.getPolicyName()).isEqualTo("quotes");
				assertThat(operation.getPolicy().getSchedule().getMaxAttempts()).isEqualTo(6);
			});
	}

	@Test
	void namesThePolicyWithPolicy() {
		this.contextRunner.withPropertyValues("backoff.policies.quotes.max-attempts=6")
			.withBean(Named.class)
			.run((context) -> {
				BackoffOperation operation = operation(context, "Named.byPolicy");
				assertThat(operation.getPolicyName()).isEqualTo("quotes");
				assertThat(operation.getPolicy().getSchedule().getMaxAttempts()).isEqualTo(6);
			});
	}

	@Test
	void acceptsValueAndPolicyWhenTheyAgree() {
		this.contextRunner.withPropertyValues("backoff.policies.quotes.max-attempts=6")
			.withBean(Named.class)
			.run((context) -> assertThat(operation(context, "Named.both").getPolicyName()).isEqualTo("quotes"));
	}

	@Test
	void annotationOverridesTheNamedPolicy() {
		this.contextRunner
			.withPropertyValues("backoff.policies.quotes.max-attempts=6", "backoff.policies.quotes.jitter=none")
			.withBean(Named.class)
			.run((context) -> {
				BackoffPolicy policy = operation(context, "Named.overridden").getPolicy();
				assertThat(policy.getSchedule().getMaxAttempts()).isEqualTo(2);
				assertThat(policy.getSchedule().getJitter()).isEqualTo(Jitter.NONE);
			});
	}

	@Test
	void methodLevelAnnotationWinsOverTypeLevel() {
		this.contextRunner.withBean(TypeLevel.class).run((context) -> {
			assertThat(operation(context, "TypeLevel.own").getPolicy().getSchedule().getMaxAttempts()).isEqualTo(4);
			assertThat(operation(context, "TypeLevel.inherited").getPolicy().getSchedule().getMaxAttempts()).isEqualTo(2);
		});
	}

	@Test
	void typeLevelAnnotationRetriesEveryPublicMethod() {
		this.contextRunner.withBean(TypeLevel.class).run((context) -> {
			TypeLevel bean = context.getBean(TypeLevel.class);
			assertThatIllegalStateException().isThrownBy(bean::inherited);
			assertThat(bean.calls()).isEqualTo(2);
		});
	}

	@Test
	void typeLevelAnnotationLeavesNonPublicMethodsAlone() {
		this.contextRunner.withBean(TypeLevel.class).run((context) -> {
			TypeLevel bean = context.getBean(TypeLevel.class);
			assertThatIllegalStateException().isThrownBy(bean::packagePrivate);
			assertThat(bean.calls()).isEqualTo(1);
			assertThat(context.getBean(BackoffOperationSource.class).getAll())
				.noneMatch((operation) -> operation.getMethod().getName().equals("packagePrivate"));
		});
	}

	@Test
	void resolvesEveryAnnotatedMethodAtStartUp() {
		this.contextRunner.withBean(Named.class)
			.withPropertyValues("backoff.policies.quotes.max-attempts=6")
			.run((context) -> assertThat(context.getBean(BackoffOperationSource.class).getAll())
				.extracting(BackoffOperation::getMethodTag)
				.containsExactlyInAnyOrder("Named.byValue", "Named.byPolicy", "Named.both", "Named.overridden"));
	}

	@Test
	void unnamedMethodsShareTheDefaultsBudgetAndANamedPolicyHasItsOwn() {
		this.contextRunner.withBean(Budgeted.class)
			.withPropertyValues("backoff.defaults.budget.max-tokens=5", "backoff.policies.quotes.max-attempts=3")
			.run((context) -> {
				BackoffOperationSource source = context.getBean(BackoffOperationSource.class);
				BackoffOperation first = budgeted(source, "first");
				BackoffOperation second = budgeted(source, "second");
				BackoffOperation named = budgeted(source, "named");
				assertThat(first.getBudget()).isNotNull().isSameAs(second.getBudget());
				assertThat(named.getBudget()).isNotNull().isNotSameAs(first.getBudget());
			});
	}

	private static BackoffOperation budgeted(BackoffOperationSource source, String name) throws Exception {
		BackoffOperation operation = source.getOperation(Budgeted.class.getMethod(name), Budgeted.class);
		assertThat(operation).isNotNull();
		return operation;
	}

	private static BackoffOperation operation(AssertableApplicationContext context, String methodTag) {
		assertThat(context).hasNotFailed();
		return context.getBean(BackoffOperationSource.class)
			.getAll()
			.stream()
			.filter((operation) -> operation.getMethodTag().equals(methodTag))
			.findFirst()
			.orElseThrow(() -> new AssertionError("No operation for " + methodTag));
	}

	static class Overrides {

		private final AtomicInteger calls = new AtomicInteger();

		public int calls() {
			return this.calls.get();
		}

		@Backoff(maxAttempts = "5", baseDelay = "200ms", maxDelay = "5s", multiplier = "1.5", jitter = Jitter.EQUAL,
				maxElapsed = "30s", retryOn = IOException.class, abortOn = FileNotFoundException.class)
		public String call() {
			return "ok";
		}

		@Backoff(maxAttempts = "2")
		public String attemptsOnly() {
			return "ok";
		}

		@Backoff(maxAttempts = "4", baseDelay = "30ms", multiplier = "1", jitter = Jitter.NONE)
		public String fixed() {
			this.calls.incrementAndGet();
			throw new IllegalStateException("always");
		}

	}

	static class Placeholders {

		@Backoff(maxAttempts = "${my.attempts}", baseDelay = "${my.base-delay}")
		public String call() {
			return "ok";
		}

	}

	static class PlaceholderPolicy {

		@Backoff("${my.policy}")
		public String call() {
			return "ok";
		}

	}

	static class Named {

		@Backoff("quotes")
		public String byValue() {
			return "ok";
		}

		@Backoff(policy = "quotes")
		public String byPolicy() {
			return "ok";
		}

		@Backoff(value = "quotes", policy = "quotes")
		public String both() {
			return "ok";
		}

		@Backoff(value = "quotes", maxAttempts = "2")
		public String overridden() {
			return "ok";
		}

	}

	@Backoff(maxAttempts = "2")
	static class TypeLevel {

		private final AtomicInteger calls = new AtomicInteger();

		@Backoff(maxAttempts = "4")
		public String own() {
			return "ok";
		}

		public String inherited() {
			this.calls.incrementAndGet();
			throw new IllegalStateException("always");
		}

		String packagePrivate() {
			this.calls.incrementAndGet();
			throw new IllegalStateException("always");
		}

		public int calls() {
			return this.calls.get();
		}

	}

	static class Budgeted {

		@Backoff
		public String first() {
			return "first";
		}

		@Backoff
		public String second() {
			return "second";
		}

		@Backoff("quotes")
		public String named() {
			return "named";
		}

	}

}
