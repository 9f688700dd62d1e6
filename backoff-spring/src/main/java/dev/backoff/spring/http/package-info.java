/**
 * HTTP-aware retry for Spring's HTTP clients: which failures are worth another attempt, and
 * the server's {@code Retry-After} hint. Needs spring-web; WebClient's failures are read
 * when spring-webflux is present too.
 */
@NullMarked
package dev.backoff.spring.http;

import org.jspecify.annotations.NullMarked;
