/**
 * Micrometer observations of {@code @Backoff} calls: {@code backoff.call} per call and
 * {@code backoff.attempt} per attempt under it, with their contexts, conventions and
 * documentation.
 */
@NullMarked
package dev.backoff.spring.observation;

import org.jspecify.annotations.NullMarked;
