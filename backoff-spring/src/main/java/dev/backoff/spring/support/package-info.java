/**
 * What every part names the same way: the type a user wrote for a class the JVM or a library
 * generated.
 */
@NullMarked
package dev.backoff.spring.support;

import org.jspecify.annotations.NullMarked;
