/**
 * A stand-in for a remote service, with faults that can be switched on: 503s, 429s with Retry-After, dropped
 * connections, a latency tail.
 */
@NullMarked
package dev.backoff.sample.downstream;

import org.jspecify.annotations.NullMarked;
