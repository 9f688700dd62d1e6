package dev.backoff.compat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The starter on Spring Boot 3.5: start-up stops before any auto-configuration loads a Boot 4
 * class, with Boot's failure report saying which Boot Backoff needs and which one it found
 * (without the check: {@code NoClassDefFoundError: org/springframework/boot/thread/Threading}).
 */
@ExtendWith(OutputCaptureExtension.class)
class UnsupportedBootTests {

	@Test
	void startUpStopsWithAReportNamingTheBootBackoffNeeds(CapturedOutput output) {
		assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
		SpringApplication application = new SpringApplication(Application.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		Throwable failure = catchThrowable(application::run);
		assertThat(failure).isNotNull().isNotInstanceOf(NoClassDefFoundError.class);
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Backoff needs Spring Boot 4.0 or later; this application runs Spring Boot "
					+ SpringBootVersion.getVersion())
			.contains("Action:")
			.doesNotContain("NoClassDefFoundError");
	}

	@SpringBootApplication
	static class Application {

	}

}
