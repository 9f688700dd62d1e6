/**
 * Spring Boot auto-configuration of Backoff: the {@code @Backoff} advisor, the
 * {@code backoff.*} properties and the failure analysis of bad configuration.
 */
@NullMarked
package dev.backoff.autoconfigure;

import org.jspecify.annotations.NullMarked;
