package dev.backoff.autoconfigure;

import dev.backoff.autoconfigure.SpringBootVersionCheck.UnsupportedSpringBootException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The Spring Boot version check on this Boot; compat/boot-3.5 runs it on a real Boot 3.5.
 */
class SpringBootVersionCheckTests {

	@Test
	void bootFourPasses() {
		try (GenericApplicationContext context = new GenericApplicationContext()) {
			assertThatNoException().isThrownBy(() -> new SpringBootVersionCheck().initialize(context));
		}
	}

	@Test
	void aBootWithoutBootFourClassesIsRefusedWithItsVersionAndAnAction() {
		try (GenericApplicationContext context = new GenericApplicationContext()) {
			context.setClassLoader(new FilteredClassLoader(SpringBootVersionCheck.BOOT_4_CLASS));
			UnsupportedSpringBootException failure = catchThrowableOfType(UnsupportedSpringBootException.class,
					() -> new SpringBootVersionCheck().initialize(context));
			FailureAnalysis analysis = new SpringBootVersionFailureAnalyzer().analyze(new IllegalStateException(failure));
			assertThat(analysis.getDescription()).isEqualTo("Backoff needs Spring Boot 4.0 or later; this application "
					+ "runs Spring Boot " + SpringBootVersion.getVersion() + ".");
			assertThat(analysis.getAction()).contains("Upgrade to Spring Boot 4.0 or later");
		}
	}

	@Test
	void theCheckAndItsReportAreRegisteredUnderKeysEveryBootReads() {
		assertThat(SpringFactoriesLoader.forDefaultResourceLocation().load(ApplicationContextInitializer.class))
			.hasAtLeastOneElementOfType(SpringBootVersionCheck.class);
		// Boot's own analyzers want constructor arguments: only whether ours is there matters.
		assertThat(SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, null, (type, name, failure) -> {
			}))
			.hasAtLeastOneElementOfType(SpringBootVersionFailureAnalyzer.class);
	}

}
