/**
 * Spring Boot auto-configuration of the {@code backoff.*} meters.
 */
@NullMarked
package dev.backoff.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
