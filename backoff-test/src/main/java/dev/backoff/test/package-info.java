/**
 * Test support for code that uses {@code @Backoff}: {@link dev.backoff.test.InstantBackoff}
 * runs every retry without waiting, and {@link dev.backoff.test.BackoffRecorder} records and
 * asserts what was retried.
 */
@NullMarked
package dev.backoff.test;

import org.jspecify.annotations.NullMarked;
