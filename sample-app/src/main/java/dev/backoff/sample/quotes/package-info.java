/**
 * Scenario 1: a flaky HTTP dependency, called over loopback HTTP with a RestClient and retried with full jitter.
 */
@NullMarked
package dev.backoff.sample.quotes;

import org.jspecify.annotations.NullMarked;
