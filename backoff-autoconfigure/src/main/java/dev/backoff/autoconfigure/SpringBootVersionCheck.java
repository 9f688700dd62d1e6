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
		check(SpringBootVersion.getVersion(), context.getClassLoader());
	}

	/**
	 * Decided by the version, a constant in Spring Boot 3 and 4 (no class look-up, which a native
	 * image may not answer); by a Boot 4 class where the version is unknown (Boot 2 reads it from
	 * its jar's manifest, which a repackaged application may lack).
	 * @param version the Spring Boot version, {@code null} when unknown
	 * @param classLoader the application's class loader
	 * @throws UnsupportedSpringBootException if that Boot is older than 4.0
	 */
	static void check(@Nullable String version, @Nullable ClassLoader classLoader) {
		boolean older = (version != null) ? major(version) < 4 : !ClassUtils.isPresent(BOOT_4_CLASS, classLoader);
		if (older) {
			throw new UnsupportedSpringBootException(version);
		}
	}

	/** @return the major version, or {@link Integer#MAX_VALUE} when it does not parse: never refused on a guess */
	private static int major(String version) {
		int dot = version.indexOf('.');
		try {
			return Integer.parseInt((dot < 0) ? version : version.substring(0, dot));
		}
		catch (NumberFormatException ex) {
			return Integer.MAX_VALUE;
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
