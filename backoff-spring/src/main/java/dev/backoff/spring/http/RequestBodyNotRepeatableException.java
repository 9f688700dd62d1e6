package dev.backoff.spring.http;

import org.jspecify.annotations.Nullable;

/**
 * A retry of a WebClient request whose body could not be written again: never retried
 * itself (see {@link HttpFailures#isRetryable}), so the caller learns why at once.
 */
public final class RequestBodyNotRepeatableException extends IllegalStateException {

	RequestBodyNotRepeatableException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
