package dev.backoff.rewrite;

/**
 * The Backoff types that the recipes write, as source, so that a {@code JavaTemplate} can
 * attribute them in a project that does not have Backoff on its class path yet (the recipes
 * add it to the build as they run).
 */
final class Stubs {

	static final String BACKOFF = """
			package dev.backoff;
			import java.lang.annotation.*;
			@Target({ ElementType.METHOD, ElementType.TYPE })
			@Retention(RetentionPolicy.RUNTIME)
			public @interface Backoff {
				String value() default "";
				String policy() default "";
				String maxAttempts() default "";
				String baseDelay() default "";
				String maxDelay() default "";
				String multiplier() default "";
				Jitter[] jitter() default {};
				String maxElapsed() default "";
				Class<? extends Throwable>[] retryOn() default {};
				Class<? extends Throwable>[] abortOn() default {};
				String retryOnException() default "";
				String retryIf() default "";
				String fallback() default "";
			}
			""";

	static final String JITTER = """
			package dev.backoff;
			public enum Jitter { NONE, FULL, EQUAL, DECORRELATED }
			""";

	static final String ENABLE_BACKOFF = """
			package dev.backoff.spring;
			import java.lang.annotation.*;
			@Target(ElementType.TYPE)
			@Retention(RetentionPolicy.RUNTIME)
			public @interface EnableBackoff {
			}
			""";

	static final String CURRENT_ATTEMPT = """
			package dev.backoff;
			public final class CurrentAttempt {
				public static int number() {
					return 0;
				}
			}
			""";

	private Stubs() {
	}

}
