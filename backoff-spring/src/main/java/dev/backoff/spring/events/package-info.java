/**
 * The recent events of each policy, kept in a small bounded ring for the {@code backoff}
 * endpoint: retries scheduled, calls that ended without success or after retries, budget
 * refusals, hedges sent and won, live changes. Nothing is recorded for a call that succeeded
 * without a retry.
 */
@NullMarked
package dev.backoff.spring.events;

import org.jspecify.annotations.NullMarked;
