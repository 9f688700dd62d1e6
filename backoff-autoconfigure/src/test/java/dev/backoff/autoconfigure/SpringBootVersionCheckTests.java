package dev.backoff.autoconfigure;

import dev.backoff.autoconfigure.SpringBootVersionCheck.UnsupportedSpringBootException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
	void thisBootPasses() {
		try (GenericApplicationContext context = new GenericApplicationContext()) {
			assertThatNoException().isThrownBy(() -> new SpringBootVersionCheck().initialize(context));
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "4.0.0", "4.0.7", "4.1.1", "4.2.0-SNAPSHOT", "5.0.0-M1", "unparseable" })
	void bootFourAndLaterPass(String version) {
		assertThatNoException().isThrownBy(() -> SpringBootVersionCheck.check(version, getClass().getClassLoader()));
	}

	@ParameterizedTest
	@ValueSource(strings = { "3.5.7", "3.0.0", "2.7.18" })
	void anOlderBootIsRefusedWithItsVersionAndAnAction(String version) {
		UnsupportedSpringBootException failure = catchThrowableOfType(UnsupportedSpringBootException.class,
				() -> SpringBootVersionCheck.check(version, getClass().getClassLoader()));
		FailureAnalysis analysis = new SpringBootVersionFailureAnalyzer().analyze(new IllegalStateException(failure));
		assertThat(analysis.getDescription())
			.isEqualTo("Backoff needs Spring Boot 4.0 or later; this application runs Spring Boot " + version + ".");
		assertThat(analysis.getAction()).contains("Upgrade to Spring Boot 4.0 or later");
	}

	@Test
	void withoutAVersionABootWithoutBootFourClassesIsRefused() {
		ClassLoader older = new FilteredClassLoader(SpringBootVersionCheck.BOOT_4_CLASS);
		assertThat(catchThrowableOfType(UnsupportedSpringBootException.class,
				() -> SpringBootVersionCheck.check(null, older)))
			.hasMessage("Backoff needs Spring Boot 4.0 or later; this application runs Spring Boot older than 4.0 "
					+ "(its jar's manifest has no version).");
		assertThatNoException().isThrownBy(() -> SpringBootVersionCheck.check(null, getClass().getClassLoader()));
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
