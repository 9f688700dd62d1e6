/**
 * The {@code backoff} Actuator endpoint: every policy with its effective settings, the methods
 * that use it and their live counts, and a preview of a policy's schedule.
 */
@NullMarked
package dev.backoff.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
