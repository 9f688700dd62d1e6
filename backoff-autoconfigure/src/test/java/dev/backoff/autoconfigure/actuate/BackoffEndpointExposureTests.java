package dev.backoff.autoconfigure.actuate;

import java.io.IOException;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.Sleeper;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.actuate.BackoffEndpoint.PreviewDescriptor;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The endpoint is there only when the user exposes it by name, shows no argument or result of
 * a call, and samples a preview's schedule once.
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

	static class Secrets {

		@Backoff(maxAttempts = "3", baseDelay = "0ms", jitter = Jitter.NONE)
		public String blocking(String secret) throws IOException {
			// The message names neither: what a failure says is the application's choice.
			throw new IOException("downstream unavailable");
		}

	}

}
