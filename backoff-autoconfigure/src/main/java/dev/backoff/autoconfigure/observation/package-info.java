/**
 * Spring Boot auto-configuration of the {@code backoff.call} and {@code backoff.attempt}
 * observations, and when calls are observed by default.
 */
@NullMarked
package dev.backoff.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
