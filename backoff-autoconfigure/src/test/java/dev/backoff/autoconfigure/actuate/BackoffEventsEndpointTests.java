package dev.backoff.autoconfigure.actuate;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.BackoffFailureAnalyzer;
import dev.backoff.autoconfigure.actuate.BackoffEndpointTests.Quotes;
import dev.backoff.autoconfigure.actuate.BackoffEndpointTests.QuotesConfiguration;
import dev.backoff.autoconfigure.actuate.RecentEvents.EventsDescriptor;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.events.BackoffEvents;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /actuator/backoff/{policy}/events} and {@code backoff.events.*}, on the endpoint
 * bean (over real HTTP in the sample's {@code DocumentedOutputsTests} and {@code TourTests}).
 */
class BackoffEventsEndpointTests {

	private static final Instant NOW = Instant.parse("2026-11-28T06:00:00Z");

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class,
				BackoffEndpointAutoConfiguration.class))
		.withUserConfiguration(QuotesConfiguration.class, FixedClock.class)
		.withPropertyValues("management.endpoints.web.exposure.include=backoff",
				"backoff.policies.quotes.max-attempts=3", "backoff.policies.quotes.base-delay=200ms",
				"backoff.policies.quotes.jitter=none");

	@Test
	void aCallThatNeededARetryShowsItsRetryAndItsEndNewestFirstAndACallThatSucceededAtOnceNothing() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.fetchTwice();
			assertThat(events(context, null, null)).isEmpty();
			quotes.failFirst(1);
			quotes.fetch();
			assertThat(events(context, null, null)).containsExactly(
					Map.of("time", "2026-11-28T06:00:00Z", "kind", "call-ended", "method", "Quotes.fetch", "outcome",
							"success_after_retry", "attempts", 2),
					Map.of("time", "2026-11-28T06:00:00Z", "kind", "retry-scheduled", "method", "Quotes.fetch",
							"attempt", 1, "delay", "200ms", "retryAfter", false, "failure", "java.io.IOException",
							"message", "down"));
		});
	}

	@Test
	void eventsAreFilteredByMethodAndByKind() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.failFirst(1);
			quotes.fetch();
			assertThat(events(context, null, "retry-scheduled")).extracting((event) -> event.get("kind"))
				.containsExactly("retry-scheduled");
			assertThat(events(context, "Quotes.fetch", "call-ended")).hasSize(1);
			assertThat(events(context, "Quotes.fetchTwice", null)).isEmpty();
		});
	}

	@Test
	void aLiveChangeIsAnEventOfItsPolicy() {
		this.runner.run((context) -> {
			context.getBean(BackoffEndpoint.class).change("quotes", Map.of("maxAttempts", "4"));
			assertThat(events(context, null, "policy-changed")).singleElement()
				.satisfies((event) -> assertThat(String.valueOf(event.get("changes"))).contains("maxAttempts"));
		});
	}

	@Test
	void anUnknownKindIsABadRequestNamingTheKinds() {
		this.runner.run((context) -> {
			WebEndpointResponse<OperationResponseBody> response = context.getBean(BackoffEndpoint.class)
				.events("quotes", "events", null, "retry");
			assertThat(response.getStatus()).isEqualTo(400);
			assertThat(((RecentEvents.UnknownKindDescriptor) response.getBody()).message()).isEqualTo(
					"No kind of event is named 'retry'; the kinds are retry-scheduled, call-ended, budget-refused, "
							+ "hedge-sent, hedge-won, policy-changed");
		});
	}

	@Test
	void anUnknownPolicyOrPathIsNotFoundAsThePreviewsIs() {
		this.runner.run((context) -> {
			BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
			assertThat(endpoint.events("nope", "events", null, null).getStatus()).isEqualTo(404);
			WebEndpointResponse<OperationResponseBody> path = endpoint.events("quotes", "evnts", null, null);
			assertThat(path.getStatus()).isEqualTo(404);
			assertThat(((RecentEvents.NoSuchPathDescriptor) path.getBody()).message())
				.isEqualTo("No 'evnts' under the policy 'quotes': /actuator/backoff/quotes/events shows its recent events");
			assertThat(endpoint.preview("quotes").getStatus()).isEqualTo(200);
		});
	}

	@Test
	void messagesCanBeLeftOut() {
		this.runner.withPropertyValues("backoff.events.include-messages=false").run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.failFirst(1);
			quotes.fetch();
			assertThat(events(context, null, "retry-scheduled")).singleElement()
				.satisfies((event) -> assertThat(event).containsEntry("failure", "java.io.IOException")
					.doesNotContainKey("message"));
		});
	}

	@Test
	void aBufferSizeOfZeroKeepsNone() {
		this.runner.withPropertyValues("backoff.events.buffer-size=0").run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.failFirst(1);
			quotes.fetch();
			EventsDescriptor body = (EventsDescriptor) context.getBean(BackoffEndpoint.class)
				.events("quotes", "events", null, null)
				.getBody();
			assertThat(body.bufferSize()).isZero();
			assertThat(body.events()).isEmpty();
		});
	}

	@Test
	void aNegativeBufferSizeStopsStartUpNamingThePropertyTheValueAndTheRule() {
		this.runner.withPropertyValues("backoff.events.buffer-size=-1").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(BackoffConfigurationException.class)
				.hasMessageContainingAll("backoff.events.buffer-size", "-1", "must be 0 or more");
			assertThat(new BackoffFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
				.contains("Property: backoff.events.buffer-size", "Value:    -1", "Rule:     must be 0 or more");
		});
	}

	@Test
	void aMisspeltEventsKeyStopsStartUpAsAnyOtherUnknownKey() {
		this.runner.withPropertyValues("backoff.events.buffer-sise=5").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("backoff.events.buffer-sise");
		});
	}

	@Test
	void withoutActuatorNoEventsAreKept() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class,
					BackoffEndpointAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(BackoffEvents.class));
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> events(AssertableApplicationContext context, @Nullable String method,
			@Nullable String kind) {
		WebEndpointResponse<OperationResponseBody> response = context.getBean(BackoffEndpoint.class)
			.events("quotes", "events", method, kind);
		assertThat(response.getStatus()).isEqualTo(200);
		return ((EventsDescriptor) response.getBody()).events();
	}

	@Configuration(proxyBeanMethods = false)
	static class FixedClock {

		@Bean
		Clock clock() {
			return Clock.fixed(NOW, ZoneOffset.UTC);
		}

	}

}
