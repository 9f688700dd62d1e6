/**
 * Micrometer meters of {@code @Backoff} calls: {@code backoff.calls}, {@code backoff.retries},
 * {@code backoff.delay} and {@code backoff.attempts}.
 */
@NullMarked
package dev.backoff.spring.metrics;

import org.jspecify.annotations.NullMarked;
