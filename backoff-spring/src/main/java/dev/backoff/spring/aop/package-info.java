/**
 * Spring AOP: the post-processor that proxies beans with {@code @Backoff} methods, and the
 * interceptor that runs their calls.
 */
@NullMarked
package dev.backoff.spring.aop;

import org.jspecify.annotations.NullMarked;
