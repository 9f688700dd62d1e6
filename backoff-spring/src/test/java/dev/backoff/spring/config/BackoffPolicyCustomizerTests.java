package dev.backoff.spring.config;

import java.util.List;
import java.util.Map;

import dev.backoff.BackoffPolicy;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link BackoffPolicyCustomizer}: over the configuration, under the changes made at run time
 * and an annotation's attributes, called for each policy by name, and reported by name when
 * it sets a value the rules refuse.
 */
class BackoffPolicyCustomizerTests {

	private static final BackoffPolicyCustomizer POLLING = (name, builder) -> {
		if (name.equals("polling")) {
			builder.maxAttempts(10).retryIfResult((result) -> result == null);
		}
	};

	@Test
	void aCustomizerWinsOverTheConfigurationOfThePolicyItNames() {
		BackoffPolicies policies = policies(POLLING);
		assertThat(policies.get("polling").getSchedule().getMaxAttempts()).isEqualTo(10);
		assertThat(policies.get("polling").getRules().getRetryIfResult()).isNotNull();
		assertThat(policies.get("quotes").getSchedule().getMaxAttempts()).isEqualTo(2);
		assertThat(policies.getDefaults().getSchedule().getMaxAttempts()).isEqualTo(BackoffPolicy.DEFAULT_MAX_ATTEMPTS);
	}

	@Test
	void aChangeAtRunTimeAndAnAnnotationWinOverACustomizer() {
		BackoffPolicies policies = policies(POLLING);
		PolicySnapshot changed = policies.snapshot().withChange("polling", Map.of("maxAttempts", "4"));
		assertThat(changed.get("polling").getSchedule().getMaxAttempts()).isEqualTo(4);
		PolicySettings annotated = new PolicySettings();
		annotated.setMaxAttempts(6);
		assertThat(policies.snapshot().derive("polling", annotated, " on Poller.poll").getSchedule().getMaxAttempts())
			.isEqualTo(6);
		// The customizer still gives what the change leaves alone.
		assertThat(changed.get("polling").getRules().getRetryIfResult()).isNotNull();
	}

	@Test
	void aValueTheRulesRefuseNamesTheCustomizersPolicyAndTheSetting() {
		assertThatExceptionOfType(BackoffConfigurationException.class)
			.isThrownBy(() -> policies((name, builder) -> builder.maxAttempts(0)))
			.satisfies((ex) -> assertThat(ex.getProperty())
				.isEqualTo("a BackoffPolicyCustomizer of policy 'defaults' (maxAttempts)"))
			.satisfies((ex) -> assertThat(ex.getValue()).isEqualTo(0));
	}

	@Test
	void aConfigurationErrorIsStillReportedUnderItsProperty() {
		BackoffSettings settings = settings();
		settings.getPolicies().get("quotes").setMultiplier(0.5);
		assertThatExceptionOfType(BackoffConfigurationException.class)
			.isThrownBy(() -> BackoffPolicies.of(settings, null, BackoffPolicy.defaults(), null, List.of(POLLING)))
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("backoff.policies.quotes.multiplier"));
	}

	private static BackoffPolicies policies(BackoffPolicyCustomizer customizer) {
		return BackoffPolicies.of(settings(), null, BackoffPolicy.defaults(), null, List.of(customizer));
	}

	private static BackoffSettings settings() {
		BackoffSettings settings = new BackoffSettings();
		PolicySettings quotes = new PolicySettings();
		quotes.setMaxAttempts(2);
		settings.getPolicies().put("quotes", quotes);
		settings.getPolicies().put("polling", new PolicySettings());
		return settings;
	}

}
