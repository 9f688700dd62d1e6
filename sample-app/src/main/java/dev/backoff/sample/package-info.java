/**
 * The Backoff sample service.
 */
@NullMarked
package dev.backoff.sample;

import org.jspecify.annotations.NullMarked;
