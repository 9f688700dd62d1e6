package dev.backoff.autoconfigure;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

import dev.backoff.BackoffPolicy;
import dev.backoff.Jitter;
import dev.backoff.spring.config.BackoffPolicies;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for binding {@code backoff.*} into {@link BackoffProperties} and building the
 * {@link BackoffPolicies} from them, inheritance included.
 */
class BackoffPropertiesTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class));

	@Test
	void bindsEveryKeyOfDefaults() {
		this.contextRunner
			.withPropertyValues("backoff.defaults.max-attempts=5", "backoff.defaults.base-delay=250ms",
					"backoff.defaults.max-delay=10s", "backoff.defaults.multiplier=1.5",
					"backoff.defaults.jitter=decorrelated", "backoff.defaults.max-elapsed=30s",
					"backoff.defaults.retry-on=java.io.IOException,java.util.concurrent.TimeoutException",
					"backoff.defaults.abort-on=java.io.FileNotFoundException")
			.run((context) -> {
				BackoffPolicy defaults = policies(context).getDefaults();
				assertThat(defaults.getSchedule().getMaxAttempts()).isEqualTo(5);
				assertThat(defaults.getSchedule().getBaseDelay()).isEqualTo(Duration.ofMillis(250));
				assertThat(defaults.getSchedule().getMaxDelay()).isEqualTo(Duration.ofSeconds(10));
				assertThat(defaults.getSchedule().getMultiplier()).isEqualTo(1.5);
				assertThat(defaults.getSchedule().getJitter()).isEqualTo(Jitter.DECORRELATED);
				assertThat(defaults.getRules().getMaxElapsed()).isEqualTo(Duration.ofSeconds(30));
				assertThat(defaults.getRules().getRetryOn()).containsExactly(IOException.class, TimeoutException.class);
				assertThat(defaults.getRules().getAbortOn()).containsExactly(FileNotFoundException.class);
			});
	}

	@Test
	void aGapInAListsIndexesStopsStartUpAsBootBindsLists() {
		this.contextRunner
			.withPropertyValues("backoff.defaults.retry-on[0]=java.io.IOException",
					"backoff.defaults.retry-on[3]=java.net.ConnectException")
			.run((context) -> {
				assertThat(context).hasFailed();
				Throwable failure = context.getStartupFailure();
				while (failure.getCause() != null) {
					failure = failure.getCause();
				}
				// Boot's own rule and message, which @EnableBackoff's SettingsBinder follows without Boot.
				assertThat(failure).isInstanceOf(UnboundConfigurationPropertiesException.class)
					.hasMessage("The elements [backoff.defaults.retry-on[3]] were left unbound.");
			});
	}

	@Test
	void bindsEveryKeyOfANamedPolicy() {
		this.contextRunner
			.withPropertyValues("backoff.policies.quotes.max-attempts=4", "backoff.policies.quotes.base-delay=50ms",
					"backoff.policies.quotes.max-delay=2s", "backoff.policies.quotes.multiplier=3",
					"backoff.policies.quotes.jitter=equal", "backoff.policies.quotes.max-elapsed=1m",
					"backoff.policies.quotes.retry-on=java.io.UncheckedIOException",
					"backoff.policies.quotes.abort-on=java.lang.IllegalArgumentException")
			.run((context) -> {
				BackoffPolicy quotes = policies(context).get("quotes");
				assertThat(quotes).isNotNull();
				assertThat(quotes.getSchedule().getMaxAttempts()).isEqualTo(4);
				assertThat(quotes.getSchedule().getBaseDelay()).isEqualTo(Duration.ofMillis(50));
				assertThat(quotes.getSchedule().getMaxDelay()).isEqualTo(Duration.ofSeconds(2));
				assertThat(quotes.getSchedule().getMultiplier()).isEqualTo(3.0);
				assertThat(quotes.getSchedule().getJitter()).isEqualTo(Jitter.EQUAL);
				assertThat(quotes.getRules().getMaxElapsed()).isEqualTo(Duration.ofMinutes(1));
				assertThat(quotes.getRules().getRetryOn()).containsExactly(UncheckedIOException.class);
				assertThat(quotes.getRules().getAbortOn()).containsExactly(IllegalArgumentException.class);
			});
	}

	@Test
	void bindsJitterNamesInLowerCase() {
		this.contextRunner
			.withPropertyValues("backoff.policies.a.jitter=none", "backoff.policies.b.jitter=full",
					"backoff.policies.c.jitter=equal", "backoff.policies.d.jitter=decorrelated")
			.run((context) -> {
				BackoffPolicies policies = policies(context);
				assertThat(policies.get("a").getSchedule().getJitter()).isEqualTo(Jitter.NONE);
				assertThat(policies.get("b").getSchedule().getJitter()).isEqualTo(Jitter.FULL);
				assertThat(policies.get("c").getSchedule().getJitter()).isEqualTo(Jitter.EQUAL);
				assertThat(policies.get("d").getSchedule().getJitter()).isEqualTo(Jitter.DECORRELATED);
			});
	}

	@Test
	void trimsSpacesAroundExceptionTypeNames() {
		this.contextRunner
			.withPropertyValues("backoff.defaults.retry-on=java.io.IOException , java.util.concurrent.TimeoutException")
			.run((context) -> assertThat(policies(context).getDefaults().getRules().getRetryOn())
				.containsExactly(IOException.class, TimeoutException.class));
	}

	@Test
	void bindsADurationWithoutUnitAsMilliseconds() {
		this.contextRunner.withPropertyValues("backoff.defaults.base-delay=300")
			.run((context) -> assertThat(policies(context).getDefaults().getSchedule().getBaseDelay())
				.isEqualTo(Duration.ofMillis(300)));
	}

	@Test
	void namedPolicyInheritsWhatItLeavesUnsetFromDefaults() {
		this.contextRunner
			.withPropertyValues("backoff.defaults.max-attempts=7", "backoff.defaults.jitter=none",
					"backoff.defaults.max-elapsed=5s", "backoff.defaults.retry-on=java.io.IOException",
					"backoff.policies.quotes.base-delay=1s")
			.run((context) -> {
				BackoffPolicy quotes = policies(context).get("quotes");
				assertThat(quotes.getSchedule().getBaseDelay()).isEqualTo(Duration.ofSeconds(1));
				assertThat(quotes.getSchedule().getMaxAttempts()).isEqualTo(7);
				assertThat(quotes.getSchedule().getJitter()).isEqualTo(Jitter.NONE);
				assertThat(quotes.getRules().getMaxElapsed()).isEqualTo(Duration.ofSeconds(5));
				assertThat(quotes.getRules().getRetryOn()).containsExactly(IOException.class);
				assertThat(quotes.getSchedule().getMaxDelay()).isEqualTo(BackoffPolicy.DEFAULT_MAX_DELAY);
				assertThat(quotes.getSchedule().getMultiplier()).isEqualTo(BackoffPolicy.DEFAULT_MULTIPLIER);
			});
	}

	@Test
	void namedPolicyRetryOnReplacesTheDefaultsRetryOn() {
		this.contextRunner
			.withPropertyValues("backoff.defaults.retry-on=java.io.IOException",
					"backoff.policies.quotes.retry-on=java.util.concurrent.TimeoutException")
			.run((context) -> assertThat(policies(context).get("quotes").getRules().getRetryOn())
				.containsExactly(TimeoutException.class));
	}

	@Test
	void defaultsAreLeftAloneByNamedPolicies() {
		this.contextRunner.withPropertyValues("backoff.policies.quotes.max-attempts=9")
			.run((context) -> assertThat(policies(context).getDefaults().getSchedule().getMaxAttempts())
				.isEqualTo(BackoffPolicy.DEFAULT_MAX_ATTEMPTS));
	}

	@Test
	void listsPolicyNamesInConfigurationOrder() {
		this.contextRunner
			.withPropertyValues("backoff.policies.zulu.max-attempts=2", "backoff.policies.alpha.max-attempts=3",
					"backoff.policies.mike.max-attempts=4")
			.run((context) -> assertThat(policies(context).getNames()).containsExactly("zulu", "alpha", "mike"));
	}

	@Test
	void findsTheDefaultsUnderTheNameDefaults() {
		this.contextRunner.withPropertyValues("backoff.defaults.max-attempts=6").run((context) -> {
			BackoffPolicies policies = policies(context);
			assertThat(policies.get(BackoffPolicies.DEFAULTS)).isSameAs(policies.getDefaults());
			assertThat(policies.get("unknown")).isNull();
		});
	}

	@Test
	void bindsEnabledAndExposesTheBoundProperties() {
		this.contextRunner.withPropertyValues("backoff.policies.quotes.multiplier=1.1").run((context) -> {
			BackoffProperties properties = context.getBean(BackoffProperties.class);
			assertThat(properties.isEnabled()).isTrue();
			assertThat(properties.getDefaults().getMultiplier()).isNull();
			assertThat(properties.getPolicies()).containsOnlyKeys("quotes");
			assertThat(properties.getPolicies().get("quotes").getMultiplier()).isEqualTo(1.1);
		});
	}

	private static BackoffPolicies policies(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		return context.getBean(BackoffPolicies.class);
	}

}
