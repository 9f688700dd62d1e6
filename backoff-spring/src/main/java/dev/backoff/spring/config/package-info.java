/**
 * The settings of {@code backoff.*} and the named policies built from them: one merge and one
 * set of validation rules and messages, whether Spring Boot binds the settings or
 * {@code @EnableBackoff} does; durations in YAML's words; SpEL of policies and annotations.
 */
@NullMarked
package dev.backoff.spring.config;

import org.jspecify.annotations.NullMarked;
