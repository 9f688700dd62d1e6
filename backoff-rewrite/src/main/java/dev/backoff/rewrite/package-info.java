/**
 * OpenRewrite recipes that migrate Spring Retry's and Spring Framework's {@code @Retryable}
 * to Backoff: {@code dev.backoff.rewrite.MigrateSpringRetry} and
 * {@code dev.backoff.rewrite.MigrateFrameworkRetryable} (declared in
 * {@code META-INF/rewrite/backoff.yml}), their Java recipes and the
 * {@link dev.backoff.rewrite.MigrationReport} they fill.
 */
@NullMarked
package dev.backoff.rewrite;

import org.jspecify.annotations.NullMarked;
