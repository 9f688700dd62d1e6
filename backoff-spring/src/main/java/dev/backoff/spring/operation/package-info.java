/**
 * Each {@code @Backoff} method resolved into an operation, and how its calls run: the
 * operation source, the return types (blocking, {@code CompletionStage}, Reactor), fallbacks,
 * the scheduler of non-blocking waits, and the extension points around a call (listener
 * factories, call observers).
 */
@NullMarked
package dev.backoff.spring.operation;

import org.jspecify.annotations.NullMarked;
