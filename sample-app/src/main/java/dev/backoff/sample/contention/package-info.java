/**
 * Scenario 4: many clients updating one row at once, with each jitter, counting the work and the time.
 */
@NullMarked
package dev.backoff.sample.contention;

import org.jspecify.annotations.NullMarked;
