package dev.backoff.autoconfigure.actuate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.backoff.Backoff;
import dev.backoff.OverloadControls;
import dev.backoff.Sleeper;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.actuate.BackoffEndpoint.ChangeDescriptor;
import dev.backoff.autoconfigure.actuate.BackoffEndpoint.InvalidChangeDescriptor;
import dev.backoff.autoconfigure.actuate.BackoffEndpoint.PolicyDescriptor;
import dev.backoff.autoconfigure.actuate.BackoffEndpoint.PreviewDescriptor;
import dev.backoff.autoconfigure.actuate.BackoffEndpoint.RetryPreview;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import dev.backoff.spring.config.BackoffPolicies.SettingChange;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.DurationFormat;
import dev.backoff.spring.config.PolicySetting;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.within;

/**
 * The {@code backoff} Actuator endpoint: availability, the listing, the schedule preview, and
 * changing a policy (over real HTTP, with the default access refusing it, in the sample's
 * {@code LivePoliciesTests} and {@code ActuatorTests}).
 */
class BackoffEndpointTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class,
				BackoffEndpointAutoConfiguration.class))
		.withUserConfiguration(QuotesConfiguration.class)
		.withPropertyValues("backoff.policies.quotes.max-attempts=5", "backoff.policies.quotes.base-delay=200ms",
				"backoff.policies.quotes.max-delay=1s", "backoff.policies.quotes.jitter=none",
				"backoff.policies.polling.jitter=equal");

	@Test
	void everySettingOfTheTableThatMayChangeLiveChangesThroughTheBodyKeyTheEndpointTakes() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=backoff",
				"backoff.policies.spare.max-attempts=2")
			.run((context) -> {
				BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
				BackoffPolicies policies = context.getBean(BackoffPolicies.class);
				List<PolicySetting<?>> live = PolicySetting.all().stream().filter(PolicySetting::isLive).toList();
				assertThat(live).hasSizeGreaterThan(10);
				for (PolicySetting<?> setting : live) {
					WebEndpointResponse<OperationResponseBody> response = endpoint.change("spare",
							body(setting.key(), setting.example()));
					assertThat(response.getStatus()).as("%s: %s", setting.key(), response.getBody()).isEqualTo(200);
					Object value = setting.valueIn(policies.getEffective("spare"));
					if (value instanceof Number number) {
						assertThat(number.doubleValue()).as(setting.name()).isEqualTo(Double.parseDouble(setting.example()));
					}
					else {
						assertThat(String.valueOf(value)).as(setting.name()).isEqualTo(setting.example());
					}
				}
			});
	}

	@Test
	void docsListTheSettingsThatMayChangeLiveAsTheTableHasThem() throws IOException {
		String page = Files.readString(Path.of("../docs/endpoint.md"), StandardCharsets.UTF_8);
		Matcher listed = Pattern.compile("valued as the YAML writes them: (.*?) \\(flat:", Pattern.DOTALL).matcher(page);
		assertThat(listed.find()).as("the list of live settings in docs/endpoint.md").isTrue();
		List<String> documented = new ArrayList<>();
		Matcher key = Pattern.compile("`([A-Za-z]+)`").matcher(listed.group(1));
		while (key.find()) {
			documented.add(key.group(1));
		}
		assertThat(documented).containsExactlyInAnyOrderElementsOf(
				PolicySetting.all().stream().filter(PolicySetting::isLive).map(PolicySetting::key).toList());
	}

	@Test
	void aChangeCanGiveAPolicyAThrottlingScheduleAndCostWhichThePreviewThenShows() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=backoff",
				"backoff.policies.quotes.budget.enabled=true").run((context) -> {
			BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
			WebEndpointResponse<OperationResponseBody> response = endpoint.change("quotes", body("throttleBaseDelay", "2s", "retryNonIdempotent", "true", "budgetThrottleCost", "0.5"));
			assertThat(response.getStatus()).isEqualTo(200);
			ChangeDescriptor changed = (ChangeDescriptor) response.getBody();
			assertThat(changed.changes().get("quotes")).containsOnlyKeys("maxRetryAfter", "throttleBaseDelay", "throttleMaxDelay",
					"retryNonIdempotent", "budget.throttleCost");
			assertThat(changed.settings().get("throttleMaxDelay")).isEqualTo("2s");
			assertThat(budget(changed.settings()).throttleCost()).isEqualTo(0.5);
			assertThat(context.getBean(BackoffPolicies.class).isRetryNonIdempotent("quotes")).isTrue();
			BackoffEndpoint.PreviewDescriptor preview = (BackoffEndpoint.PreviewDescriptor) endpoint.preview("quotes")
				.getBody();
			// 2s × 2^(n−1), capped at 2s (max-delay 1s): every throttled ceiling is the cap.
			assertThat(preview.throttling()).extracting(BackoffEndpoint.RetryPreview::ceiling).containsOnly("2s");
			InvalidChangeDescriptor refused = (InvalidChangeDescriptor) endpoint
				.change("quotes", body("throttleBaseDelay", "100ms"))
				.getBody();
			assertThat(refused.property()).isEqualTo("backoff.policies.quotes.throttle-base-delay");
			assertThat(refused.rule()).isEqualTo("must be at least base-delay (200ms): a retry after throttling waits "
					+ "longer than another");
		});
	}

	@Test
	void isNotAvailableUnlessExposed() {
		this.runner.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(BackoffEndpoint.class));
	}

	@Test
	void isAvailableWhenExposedOnTheWeb() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=backoff")
			.run((context) -> assertThat(context).hasSingleBean(BackoffEndpoint.class));
	}

	@Test
	void isNotAvailableWhenAccessIsNone() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=backoff",
					"management.endpoint.backoff.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(BackoffEndpoint.class));
	}

	@Test
	void isReadOnlyByDefault() {
		assertThat(BackoffEndpoint.class.getAnnotation(Endpoint.class).defaultAccess()).isEqualTo(Access.READ_ONLY);
	}

	@Test
	void changesAPolicyAndListsWhatDiffersFromTheConfiguration() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=backoff").run((context) -> {
			BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
			WebEndpointResponse<OperationResponseBody> response = endpoint.change("quotes", body("maxAttempts", "1", "multiplier", "1.5", "jitter", "full", "budgetMaxTokens", "8"));
			assertThat(response.getStatus()).isEqualTo(200);
			ChangeDescriptor change = (ChangeDescriptor) response.getBody();
			assertThat(change.changes().get("quotes")).containsOnlyKeys("maxAttempts", "multiplier", "jitter",
					"budget.enabled", "budget.maxTokens", "budget.tokenRatio", "budget.throttleCost");
			assertThat(change.settings().get("maxAttempts")).isEqualTo(1);
			assertThat(budget(change.settings()).tokens()).isEqualTo(8.0);
			PolicyDescriptor quotes = endpoint.policies().policies().get("quotes");
			assertThat(quotes.changes()).containsEntry("maxAttempts", new SettingChange(5, 1))
				.containsEntry("jitter", new SettingChange("none", "full"));
			assertThat(quotes.settings().get("maxAttempts")).isEqualTo(1);
			assertThat(quotes.methods().get("Quotes.fetch").settings().get("maxAttempts")).isEqualTo(1);
			// The annotation's maxAttempts = "2" still wins for its method.
			assertThat(quotes.methods().get("Quotes.fetchTwice").settings().get("maxAttempts")).isEqualTo(2);
			assertThat(preview(endpoint, "quotes").schedule()).isEmpty();
			assertThat(endpoint.policies().policies().get("polling").changes()).isNull();
			assertThat(endpoint.reset("quotes").getStatus()).isEqualTo(200);
			assertThat(endpoint.policies().policies().get("quotes").changes()).isNull();
			assertThat(endpoint.policies().policies().get("quotes").settings().get("maxAttempts")).isEqualTo(5);
		});
	}

	@Test
	void refusesAnInvalidChangeWithThePropertyTheValueAndTheRule() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=backoff").run((context) -> {
			BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
			WebEndpointResponse<OperationResponseBody> response = endpoint.change("quotes", body("maxAttempts", "2", "maxDelay", "2s", "multiplier", "0.5"));
			assertThat(response.getStatus()).isEqualTo(400);
			InvalidChangeDescriptor invalid = (InvalidChangeDescriptor) response.getBody();
			assertThat(invalid.property()).isEqualTo("backoff.policies.quotes.multiplier");
			assertThat(invalid.value()).isEqualTo("0.5");
			assertThat(invalid.rule()).isEqualTo("must be a finite number of at least 1 (1 gives a fixed delay)");
			assertThat(invalid.message()).startsWith("backoff.policies.quotes.multiplier was '0.5', but " + invalid.rule());
			assertThat(endpoint.policies().policies().get("quotes").settings().get("maxAttempts")).isEqualTo(5);
			assertThat(endpoint.policies().policies().get("quotes").changes()).isNull();
			InvalidChangeDescriptor empty = (InvalidChangeDescriptor) endpoint
				.change("quotes", body())
				.getBody();
			assertThat(empty.message()).startsWith("the body names no setting to change");
			InvalidChangeDescriptor budget = (InvalidChangeDescriptor) endpoint
				.change("quotes", body("budgetEnabled", "true", "budgetMaxTokens", "0.5"))
				.getBody();
			assertThat(budget.property()).isEqualTo("backoff.policies.quotes.budget.max-tokens");
		});
	}

	@Test
	void aPolicyWhoseNameHasUpperCaseOrAnUnderscoreCanBeChangedLive() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=backoff",
				"backoff.policies.paymentGateway.max-attempts=4", "backoff.policies.Quotes_V2.max-attempts=4")
			.run((context) -> {
				BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
				for (String policy : List.of("paymentGateway", "Quotes_V2")) {
					WebEndpointResponse<OperationResponseBody> response = endpoint.change(policy, body("maxAttempts", "2"));
					assertThat(response.getStatus()).isEqualTo(200);
					assertThat(context.getBean(BackoffPolicies.class).get(policy).getSchedule().getMaxAttempts()).isEqualTo(2);
					WebEndpointResponse<OperationResponseBody> refused = endpoint.change(policy, body("jitter", "fullest"));
					assertThat(refused.getStatus()).isEqualTo(400);
					assertThat(((InvalidChangeDescriptor) refused.getBody()).property())
						.isEqualTo("backoff.policies." + policy + ".jitter");
					assertThat(endpoint.reset(policy).getStatus()).isEqualTo(200);
				}
			});
	}

	@Test
	void answers404WithABodyForAChangeOfAnUnknownPolicy() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=backoff").run((context) -> {
			BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
			WebEndpointResponse<OperationResponseBody> response = endpoint.change("nope", body("maxAttempts", "1"));
			assertThat(response.getStatus()).isEqualTo(404);
			assertThat(((InvalidChangeDescriptor) response.getBody()).message())
				.isEqualTo("No Backoff policy is named 'nope'; configured: defaults, quotes, polling");
			assertThat(endpoint.reset("nope").getStatus()).isEqualTo(404);
		});
	}

	@Test
	void namesTheNearestSettingOrPolicyOfATypo() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=backoff").run((context) -> {
			BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
			WebEndpointResponse<OperationResponseBody> typo = endpoint.change("quotes", body("maxAtempts", "2"));
			assertThat(typo.getStatus()).isEqualTo(400);
			assertThat(((InvalidChangeDescriptor) typo.getBody()).rule())
				.startsWith("the body names maxAtempts, which is no setting (did you mean maxAttempts?); the settings are ");
			WebEndpointResponse<OperationResponseBody> typos = endpoint.change("quotes",
					body("maxAtempts", "2", "basedelay", "1s", "colour", "red"));
			assertThat(((InvalidChangeDescriptor) typos.getBody()).rule()).startsWith("the body names basedelay, colour, "
					+ "maxAtempts, which are no settings (did you mean baseDelay for basedelay, maxAttempts for maxAtempts?)");
			WebEndpointResponse<OperationResponseBody> far = endpoint.change("quotes", body("colour", "red"));
			assertThat(((InvalidChangeDescriptor) far.getBody()).rule())
				.startsWith("the body names colour, which is no setting; the settings are ");
			WebEndpointResponse<OperationResponseBody> policy = endpoint.change("quots", body("maxAttempts", "2"));
			assertThat(policy.getStatus()).isEqualTo(404);
			assertThat(((InvalidChangeDescriptor) policy.getBody()).message())
				.isEqualTo("No Backoff policy is named 'quots'; configured: defaults, quotes, polling. Did you mean 'quotes'?");
		});
	}

	@Test
	void showsEachBudgetWithItsTokensAndWhatNestedCallsDo() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=backoff",
					"backoff.policies.quotes.budget.max-tokens=4", "backoff.policies.quotes.max-retry-after=30s")
			.run((context) -> {
				BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
				assertThat(endpoint.policies().nested()).isEqualTo("outermost");
				Map<String, Object> quotes = endpoint.policies().policies().get("quotes").settings();
				assertThat(budget(quotes)).isEqualTo(new BackoffEndpoint.BudgetDescriptor(4.0, 0.1, 0.357, 4.0, true));
				assertThat(quotes.get("maxRetryAfter")).isEqualTo("30s");
				Map<String, Object> polling = endpoint.policies().policies().get("polling").settings();
				assertThat(budget(polling)).isNull();
				assertThat(polling.get("maxRetryAfter")).isEqualTo("20s");
			});
	}

	@Test
	void showsAdmissionAndPacingWithTheirStateNowAndLeavesThemOutWhereOff() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=backoff",
					"backoff.policies.quotes.admission.enabled=true", "backoff.policies.quotes.admission.window=30s",
					"backoff.policies.quotes.pacing.enabled=true")
			.run((context) -> {
				BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
				Map<String, Object> quotes = endpoint.policies().policies().get("quotes").settings();
				assertThat(quotes.get("admission")).isEqualTo(Map.of("ratio", 2.0, "window", "30s", "maxRejection", 0.9,
						"firstAttempts", true, "rejectionProbability", 0.0));
				assertThat(quotes.get("pacing")).isEqualTo(Map.of("active", false));
				assertThat(endpoint.policies().policies().get("polling").settings()).doesNotContainKeys("admission",
						"pacing", "admission.enabled");
			});
	}

	@Test
	void aLiveChangeOfAnotherSettingKeepsWhatAdmissionCountedWhileAChangeOfItsOwnStartsAfresh() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=backoff",
					"backoff.policies.quotes.admission.enabled=true", "backoff.policies.quotes.pacing.enabled=true")
			.run((context) -> {
				BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
				BackoffPolicies policies = context.getBean(BackoffPolicies.class);
				OverloadControls before = policies.getEffective("quotes").controls();
				for (int i = 0; i < 3; i++) {
					before.getAdmission().admit();
				}
				assertThat(endpoint.change("quotes", body("maxAttempts", "2")).getStatus()).isEqualTo(200);
				OverloadControls after = policies.getEffective("quotes").controls();
				assertThat(after).isSameAs(before);
				assertThat(after.getAdmission().rejectionProbability()).isPositive();
				assertThat(endpoint.change("quotes", body("admissionRatio", "3")).getStatus()).isEqualTo(200);
				OverloadControls changed = policies.getEffective("quotes").controls();
				assertThat(changed.getAdmission()).isNotSameAs(before.getAdmission());
				assertThat(changed.getAdmission().rejectionProbability()).isZero();
				assertThat(changed.getPacing()).isSameAs(before.getPacing());
				assertThat(endpoint.change("quotes", body("pacingEnabled", "false", "admissionEnabled", "false"))
					.getStatus()).isEqualTo(200);
				assertThat(policies.getEffective("quotes").controls()).isNull();
				assertThat(endpoint.policies().policies().get("quotes").settings()).doesNotContainKeys("admission",
						"pacing");
			});
	}

	@Test
	void listsEveryPolicyWithItsEffectiveSettings() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=backoff").run((context) -> {
			BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
			assertThat(endpoint.policies().policies()).containsOnlyKeys("defaults", "quotes", "polling");
			PolicyDescriptor quotes = endpoint.policies().policies().get("quotes");
			assertThat(quotes.settings().get("maxAttempts")).isEqualTo(5);
			assertThat(quotes.settings().get("baseDelay")).isEqualTo("200ms");
			assertThat(quotes.settings().get("maxDelay")).isEqualTo("1s");
			assertThat(quotes.settings().get("jitter")).isEqualTo("none");
			// Inherited from backoff.defaults, which inherits the built-in default.
			assertThat(quotes.settings().get("multiplier")).isEqualTo(2.0);
			// The schedule: 200ms + 400ms + 800ms + 1s (capped); a server's hint, honoured up to
			// max-retry-after (max-delay when unset), may make each of the four retries wait 1s.
			assertThat(quotes.worstCaseScheduleDelay()).isEqualTo("2400ms");
			assertThat(quotes.worstCaseTotalDelay()).isEqualTo("4s");
			assertThat(endpoint.policies().policies().get("polling").settings().get("jitter")).isEqualTo("equal");
		});
	}

	@Test
	void listsTheMethodsOfAPolicyWithTheirOverridesAndLiveCounts() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=backoff").run((context) -> {
			BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
			// Counted, but nothing yet: no outcome has happened.
			assertThat(endpoint.policies().policies().get("quotes").methods().get("Quotes.fetch").calls()).isEmpty();
			Quotes quotes = context.getBean(Quotes.class);
			quotes.failFirst(1);
			quotes.fetch();
			quotes.failFirst(0);
			quotes.fetch();
			PolicyDescriptor policy = endpoint.policies().policies().get("quotes");
			assertThat(policy.methods()).containsOnlyKeys("Quotes.fetch", "Quotes.fetchTwice");
			// Only the outcomes that happened, in the order of their names.
			assertThat(policy.methods().get("Quotes.fetch").calls()).containsExactly(entry("success", 1L),
					entry("success_after_retry", 1L));
			assertThat(policy.methods().get("Quotes.fetchTwice").calls()).isEmpty();
			assertThat(policy.methods().get("Quotes.fetchTwice").settings().get("maxAttempts")).isEqualTo(2);
			assertThat(policy.methods().get("Quotes.fetchTwice").worstCaseScheduleDelay()).isEqualTo("200ms");
			assertThat(policy.methods().get("Quotes.fetchTwice").worstCaseTotalDelay()).isEqualTo("1s");
		});
	}

	@Test
	void previewsTheScheduleOfAPolicy() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=backoff").run((context) -> {
			PreviewDescriptor preview = preview(context.getBean(BackoffEndpoint.class), "quotes");
			assertThat(preview).isNotNull();
			assertThat(preview.samples()).isEqualTo(10_000);
			assertThat(preview.schedule()).extracting(RetryPreview::ceiling)
				.containsExactly("200ms", "400ms", "800ms", "1s");
			// Without jitter every sample is the ceiling.
			assertThat(preview.schedule()).allSatisfy((row) -> {
				assertThat(row.expected()).isEqualTo(row.ceiling());
				assertThat(row.p50()).isEqualTo(row.ceiling());
				assertThat(row.p99()).isEqualTo(row.ceiling());
			});
			assertThat(preview.schedule()).extracting(RetryPreview::worstCaseElapsed)
				.containsExactly("200ms", "600ms", "1400ms", "2400ms");
			assertThat(preview.growth()).contains("1.00 x T");
		});
	}

	@Test
	void previewsSampledPercentilesOfFullJitter() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=backoff").run((context) -> {
			PreviewDescriptor preview = preview(context.getBean(BackoffEndpoint.class), "defaults");
			assertThat(preview.schedule()).hasSize(2);
			RetryPreview first = preview.schedule().get(0);
			assertThat(first.ceiling()).isEqualTo("100ms");
			// Full jitter: mean and median near v/2, p99 near 0.99 v.
			assertThat(millis(first.expected())).isCloseTo(50.0, within(1.5));
			assertThat(millis(first.p50())).isCloseTo(50.0, within(2.0));
			assertThat(millis(first.p99())).isCloseTo(99.0, within(1.0));
			assertThat(millis(preview.schedule().get(1).expectedElapsed())).isCloseTo(150.0, within(4.0));
			assertThat(preview.schedule().get(1).worstCaseElapsed()).isEqualTo("300ms");
		});
	}

	@Test
	void answers404WithTheConfiguredPoliciesForAnUnknownPolicy() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=backoff").run((context) -> {
			WebEndpointResponse<OperationResponseBody> response = context.getBean(BackoffEndpoint.class).preview("nope");
			assertThat(response.getStatus()).isEqualTo(404);
			assertThat(response.getBody()).isInstanceOfSatisfying(BackoffEndpoint.InvalidChangeDescriptor.class,
					(body) -> assertThat(body.message())
						.isEqualTo("No Backoff policy is named 'nope'; configured: defaults, quotes, polling"));
		});
	}

	@Test
	void previewsTheLongestWaitOfDecorrelatedJitterAsItsCeiling() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=backoff",
					"backoff.policies.quotes.jitter=decorrelated")
			.run((context) -> {
				PreviewDescriptor preview = preview(context.getBean(BackoffEndpoint.class), "quotes");
				// min(1s, 200ms x 3^n): what bounds each draw, never below the sampled p99.
				assertThat(preview.schedule()).extracting(RetryPreview::ceiling)
					.containsExactly("600ms", "1s", "1s", "1s");
				assertThat(preview.schedule())
					.allSatisfy((row) -> assertThat(millis(row.p99())).isLessThanOrEqualTo(millis(row.ceiling())));
			});
	}

	@Test
	void previewsAWorstCaseThatMaxElapsedBounds() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=backoff",
					"backoff.policies.quotes.max-elapsed=1s")
			.run((context) -> {
				BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
				PreviewDescriptor preview = preview(endpoint, "quotes");
				assertThat(preview.worstCaseTotalDelay()).isEqualTo("1s");
				assertThat(preview.schedule()).extracting(RetryPreview::worstCaseElapsed)
					.containsExactly("200ms", "600ms", "1s", "1s");
				assertThat(endpoint.policies().policies().get("quotes").worstCaseTotalDelay()).isEqualTo("1s");
			});
	}

	@Test
	void saysWhenThePreviewListsOnlyTheFirstRetries() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=backoff",
					"backoff.policies.quotes.max-attempts=100")
			.run((context) -> {
				PreviewDescriptor preview = preview(context.getBean(BackoffEndpoint.class), "quotes");
				assertThat(preview.retries()).isEqualTo(99);
				assertThat(preview.schedule()).hasSize(SchedulePreviews.MAX_PREVIEW_RETRIES);
				assertThat(preview.listed()).isEqualTo("the first 50 of 99 retries; the worst case counts them all");
			});
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=backoff")
			.run((context) -> assertThat(preview(context.getBean(BackoffEndpoint.class), "quotes").listed()).isNull());
	}

	private static PreviewDescriptor preview(BackoffEndpoint endpoint, String policy) {
		WebEndpointResponse<OperationResponseBody> response = endpoint.preview(policy);
		assertThat(response.getStatus()).isEqualTo(200);
		return (PreviewDescriptor) response.getBody();
	}

	@Test
	void listsNoCountsWithoutMetrics() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffEndpointAutoConfiguration.class))
			.withUserConfiguration(QuotesConfiguration.class)
			.withPropertyValues("backoff.policies.quotes.max-attempts=5",
					"management.endpoints.web.exposure.include=backoff")
			.run((context) -> {
				PolicyDescriptor policy = context.getBean(BackoffEndpoint.class).policies().policies().get("quotes");
				assertThat(policy.methods().get("Quotes.fetch").calls()).isNull();
			});
	}

	@Test
	void anAttemptTimeoutIsListedAndRefusedForAPolicyOfBlockingMethods() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=backoff").run((context) -> {
			BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
			// Quotes' methods are blocking: Java cannot stop their threads.
			WebEndpointResponse<OperationResponseBody> refused = endpoint.change("quotes", body("attemptTimeout", "2s"));
			assertThat(refused.getStatus()).isEqualTo(400);
			InvalidChangeDescriptor invalid = (InvalidChangeDescriptor) refused.getBody();
			assertThat(invalid.property()).isEqualTo("backoff.policies.quotes.attempt-timeout");
			assertThat(invalid.value()).isEqualTo("2s");
			assertThat(invalid.rule()).contains("Quotes.fetch").contains("which is blocking");
			assertThat(endpoint.policies().policies().get("quotes").settings().get("attemptTimeout")).isNull();
			// A policy without blocking methods takes it, and the listing shows it.
			WebEndpointResponse<OperationResponseBody> polling = endpoint.change("polling", body("attemptTimeout", "2s"));
			assertThat(polling.getStatus()).isEqualTo(200);
			assertThat(((ChangeDescriptor) polling.getBody()).changes().get("polling"))
				.containsOnly(entry("attemptTimeout", new SettingChange(null, "2s")));
			assertThat(endpoint.policies().policies().get("polling").settings().get("attemptTimeout")).isEqualTo("2s");
			// The defaults' timeout is for non-blocking methods: the blocking ones are listed without it.
			assertThat(endpoint.change("defaults", body("attemptTimeout", "3s"))
				.getStatus()).isEqualTo(200);
			PolicyDescriptor quotes = endpoint.policies().policies().get("quotes");
			assertThat(quotes.settings().get("attemptTimeout")).isEqualTo("3s");
			assertThat(quotes.methods().values()).isNotEmpty()
				.allSatisfy((method) -> assertThat(method.settings().get("attemptTimeout")).isNull());
		});
	}

	private static double millis(String duration) {
		return DurationFormat.parse(duration).toNanos() / 1e6;
	}

	@Configuration(proxyBeanMethods = false)
	static class QuotesConfiguration {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		Sleeper noSleep() {
			return (delay) -> {
			};
		}

		@Bean
		Quotes quotes() {
			return new Quotes();
		}

	}

	static class Quotes {

		private int failures;

		public void failFirst(int failures) {
			this.failures = failures;
		}

		@Backoff("quotes")
		public String fetch() throws IOException {
			if (this.failures-- > 0) {
				throw new IOException("down");
			}
			return "quote";
		}

		@Backoff(value = "quotes", maxAttempts = "2")
		public String fetchTwice() {
			return "quote";
		}

	}

	/** A change's request body: setting, value, setting, value… */
	private static Map<String, Object> body(Object... settings) {
		Map<String, Object> body = new java.util.LinkedHashMap<>();
		for (int i = 0; i < settings.length; i += 2) {
			body.put((String) settings[i], settings[i + 1]);
		}
		return body;
	}

	private static BackoffEndpoint.BudgetDescriptor budget(Map<String, Object> settings) {
		return (BackoffEndpoint.BudgetDescriptor) settings.get("budget");
	}

}
