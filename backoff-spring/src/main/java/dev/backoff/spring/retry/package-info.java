/**
 * Named policies as Spring's own retry types, for the retries that Backoff does not run itself:
 * {@code org.springframework.util.backoff.BackOff} (Spring Kafka's error handlers) and
 * Framework 7's {@code org.springframework.core.retry.RetryPolicy} (everything built on
 * {@code RetryTemplate}: Spring AMQP, Spring Integration, Spring Batch).
 */
@NullMarked
package dev.backoff.spring.retry;

import org.jspecify.annotations.NullMarked;
