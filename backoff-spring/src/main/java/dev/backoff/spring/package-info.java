/**
 * Backoff for Spring applications without Spring Boot: {@link dev.backoff.spring.EnableBackoff}
 * and the configuration it imports.
 */
@NullMarked
package dev.backoff.spring;

import org.jspecify.annotations.NullMarked;
