package dev.backoff.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Import;

/**
 * Retries {@code @Backoff} methods in a Spring application without Spring Boot: registers the
 * advisor that proxies {@code @Backoff} beans, the operation source, the executor and the
 * scheduler of non-blocking retries, the named policies from {@code backoff.*} in Spring's
 * {@code Environment} (as in {@code application.yml}, checked by the same rules and messages as
 * under Boot), and, when the application has them, meters in its {@code MeterRegistry}, the
 * HTTP clients' {@code BackoffHttp} and observations ({@code backoff.observations.enabled=true}).
 * Sleeper, clock, random source, listeners and listener factories are taken from the
 * application's beans when it defines them.
 *
 * <p>Harmless under Spring Boot: where Backoff's auto-configuration has already defined the
 * runtime, this adds nothing, so an application never gets a second advisor or retries twice.
 * It is imported after the auto-configurations for that reason.
 *
 * @see BackoffConfiguration
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(BackoffImportSelector.class)
public @interface EnableBackoff {

}
