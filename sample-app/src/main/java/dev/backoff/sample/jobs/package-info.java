/**
 * Scenario 3: polling an asynchronous job until it is ready: a result-based retry with no jitter.
 */
@NullMarked
package dev.backoff.sample.jobs;

import org.jspecify.annotations.NullMarked;
