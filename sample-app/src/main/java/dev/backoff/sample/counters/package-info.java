/**
 * Scenario 2: optimistic concurrency on an H2 row; a conflict is retried with full jitter and re-reads the version.
 */
@NullMarked
package dev.backoff.sample.counters;

import org.jspecify.annotations.NullMarked;
