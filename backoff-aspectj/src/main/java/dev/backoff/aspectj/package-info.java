/**
 * AspectJ weaving of {@code @Backoff} methods: {@link dev.backoff.aspectj.BackoffAspect}, for
 * self-invocations and non-public methods, over the same engine as the proxies.
 */
@NullMarked
package dev.backoff.aspectj;

import org.jspecify.annotations.NullMarked;
