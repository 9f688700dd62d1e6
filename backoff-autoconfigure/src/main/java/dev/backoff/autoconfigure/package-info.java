/**
 * Spring Boot auto-configuration of Backoff: the {@code backoff.*} properties with their strict
 * check and failure analysis, and the auto-configurations that wire the runtime of
 * backoff-spring into a Boot application.
 */
@NullMarked
package dev.backoff.autoconfigure;

import org.jspecify.annotations.NullMarked;
