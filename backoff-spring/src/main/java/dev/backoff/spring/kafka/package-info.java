/**
 * Kafka listeners whose failed records follow a named policy through the container's own
 * seek-and-redeliver: never an in-process retry around a listener.
 */
@NullMarked
package dev.backoff.spring.kafka;

import org.jspecify.annotations.NullMarked;
