package dev.backoff.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.SpringBootVersion;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.util.ClassUtils;

/**
 * Stops start-up on a Spring Boot older than 4.0 with a report that says so
 * ({@link SpringBootVersionFailureAnalyzer}), instead of the {@code NoClassDefFoundError} an
 * auto-configuration would meet. An initializer because initializers run before the context
 * refreshes, so before any auto-configuration class is loaded, and their failures reach Boot's
 * failure analysis; registered in {@code META-INF/spring.factories} under keys that Boot 2, 3
 * and 4 all read. It must use only what those Boots have.
 */
public class SpringBootVersionCheck implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	/** A Boot 4.0 class that the auto-configurations need: its package is new in 4.0. */
	static final String BOOT_4_CLASS = "org.springframework.boot.thread.Threading";

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		if (!ClassUtils.isPresent(BOOT_4_CLASS, context.getClassLoader())) {
			throw new UnsupportedSpringBootException(SpringBootVersion.getVersion());
		}
	}

	/** Backoff's auto-configurations met a Spring Boot older than 4.0. */
	public static class UnsupportedSpringBootException extends IllegalStateException {

		private final @Nullable String version;

		UnsupportedSpringBootException(@Nullable String version) {
			super("Backoff needs Spring Boot 4.0 or later; this application runs Spring Boot "
					+ ((version != null) ? version + "." : "older than 4.0 (its jar's manifest has no version)."));
			this.version = version;
		}

		/** @return the Spring Boot version found, {@code null} when its jar does not say */
		public @Nullable String getVersion() {
			return this.version;
		}

	}

}
