/**
 * Spring AOT with Spring Boot: the {@code backoff.*} properties bound at build time.
 */
@NullMarked
package dev.backoff.autoconfigure.aot;

import org.jspecify.annotations.NullMarked;
