package dev.backoff.autoconfigure.actuate;

import java.io.IOException;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.Sleeper;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.actuate.BackoffEndpoint.PreviewDescriptor;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import dev.backoff.spring.http.BackoffHttp;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.test.web.client.MockRestServiceServer;
import org.springframework.web.client.RestClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.springframework.test.web.client.match.MockRestRequestMatchers.requestTo;
import static org.springframework.test.web.client.response.MockRestResponseCreators.withSuccess;

/**
 * The endpoint is there only when the user exposes it by name, shows no argument of a call,
 * lists the HTTP clients' operations, and samples a preview's schedule once.
 */
class BackoffEndpointExposureTests {

	private static final String SECRET_ARGUMENT = "s3cr3t-arg";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffEndpointAutoConfiguration.class))
		.withBean(Sleeper.class, () -> (delay) -> {
		});

	@Test
	void endpointIsNotAvailableWhenOnlyOtherEndpointsAreExposed() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=health,info")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(BackoffEndpoint.class));
	}

	@Test
	void thePoliciesShowNoArgumentOfACall() {
		this.runner.withBean(Secrets.class)
			.withPropertyValues("management.endpoints.web.exposure.include=backoff")
			.run((context) -> {
				assertThatExceptionOfType(IOException.class)
					.isThrownBy(() -> context.getBean(Secrets.class).blocking(SECRET_ARGUMENT));
				assertThat(context.getBean(BackoffEndpoint.class).policies().toString())
					.doesNotContain(SECRET_ARGUMENT);
			});
	}

	@Test
	void aPreviewIsSampledOncePerSchedule() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=backoff",
					"backoff.policies.quotes.max-attempts=10")
			.run((context) -> {
				BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
				assertThat(((PreviewDescriptor) endpoint.preview("quotes").getBody()).schedule()).hasSize(9)
					.isSameAs(((PreviewDescriptor) endpoint.preview("quotes").getBody()).schedule());
			});
	}

	@Test
	void theEndpointListsTheHttpClientsOperationsAndPreviewsBothSchedules() {
		// The calls it lists are counted by the meters.
		this.runner
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, BackoffMetricsAutoConfiguration.class))
			.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("management.endpoints.web.exposure.include=backoff",
					"backoff.policies.downstream.max-attempts=3", "backoff.policies.downstream.base-delay=10ms",
					"backoff.policies.downstream.jitter=none", "backoff.policies.downstream.throttle-base-delay=1s")
			.run((context) -> {
				RestClient.Builder builder = RestClient.builder()
					.requestInterceptor(context.getBean(BackoffHttp.class).interceptor("downstream"));
				MockRestServiceServer server = MockRestServiceServer.bindTo(builder).build();
				server.expect(requestTo("/quote")).andRespond(withSuccess("ok", MediaType.TEXT_PLAIN));
				builder.build().get().uri("/quote").retrieve().body(String.class);
				server.verify();
				BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
				BackoffEndpoint.PolicyDescriptor downstream = endpoint.policies().policies().get("downstream");
				assertThat(downstream.methods()).containsOnlyKeys("downstream GET");
				assertThat(downstream.methods().get("downstream GET").calls()).containsEntry("success", 1L);
				assertThat(downstream.settings().get("throttleBaseDelay")).isEqualTo("1s");
				assertThat(downstream.settings().get("throttleMaxDelay")).isEqualTo("20s");
				BackoffEndpoint.PreviewDescriptor preview = (BackoffEndpoint.PreviewDescriptor) endpoint
					.preview("downstream").getBody();
				assertThat(preview.schedule()).extracting(BackoffEndpoint.RetryPreview::ceiling).containsExactly("10ms",
						"20ms");
				assertThat(preview.throttling()).extracting(BackoffEndpoint.RetryPreview::ceiling).containsExactly("1s",
						"2s");
				assertThat(preview.worstCaseScheduleDelay()).isEqualTo("3s");
				// max-retry-after is throttle-max-delay when unset: each retry may wait 20s on a server's hint.
				assertThat(preview.worstCaseTotalDelay()).isEqualTo("40s");
			});
	}

	static class Secrets {

		@Backoff(maxAttempts = "3", baseDelay = "0ms", jitter = Jitter.NONE)
		public String blocking(String secret) throws IOException {
			// The message names neither: what a failure says is the application's choice.
			throw new IOException("downstream unavailable");
		}

	}

}
