/**
 * Scenario 1d: the quote read through a RestClient whose policy also protects the downstream when it is overloaded:
 * admission (client-side throttling) and pacing on throttling.
 */
@NullMarked
package dev.backoff.sample.guarded;

import org.jspecify.annotations.NullMarked;
