/**
 * Auto-configuration of Kafka listeners retried by named policies.
 */
@NullMarked
package dev.backoff.autoconfigure.kafka;

import org.jspecify.annotations.NullMarked;
