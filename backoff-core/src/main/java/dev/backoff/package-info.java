/**
 * Retry with exponential backoff and jitter: policies, delay sequences, the retry
 * executor and the {@link dev.backoff.Backoff @Backoff} annotation. Spring-free.
 */
@NullMarked
package dev.backoff;

import org.jspecify.annotations.NullMarked;
