package dev.backoff.spring.operation;

import java.time.Duration;

import dev.backoff.BackoffListener;
import dev.backoff.Outcome;
import dev.backoff.spring.config.DurationFormat;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Logs retries at DEBUG under {@code dev.backoff}: each retry scheduled (policy, method,
 * attempt x of y, delay, exception class and message) and each call that ends without
 * success. Never logs a method argument or return value. Switch it on with
 * {@code logging.level.dev.backoff=debug}; when off it costs a level check per retry.
 */
public class BackoffLogging implements BackoffListenerFactory {

	private static final Log logger = LogFactory.getLog("dev.backoff");

	@Override
	public BackoffListener create(BackoffOperation operation) {
		// Only the operation is kept: the texts are made when a line is logged, not for every method at start-up.
		return new BackoffListener() {

			@Override
			public void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
				if (logger.isDebugEnabled()) {
					logger.debug(prefix(operation) + "attempt " + attempt + ofMax(operation) + " failed ("
							+ describe(failure) + "); retrying in " + DurationFormat.formatRounded(delay));
				}
			}

			@Override
			public void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
				if (logger.isDebugEnabled()) {
					logger.debug(prefix(operation) + "gave up after " + attempts + ofMax(operation)
							+ " attempts, outcome " + outcome.tagValue() + " (" + describe(failure) + ")");
				}
			}

		};
	}

	static String prefix(BackoffOperation operation) {
		return "@Backoff(" + operation.getPolicyName() + ") " + operation.getMethodTag() + ": ";
	}

	private static String ofMax(BackoffOperation operation) {
		int maxAttempts = operation.getPolicy().getSchedule().getMaxAttempts();
		return (maxAttempts == Integer.MAX_VALUE) ? "" : " of " + maxAttempts;
	}

	private static String describe(@Nullable Throwable failure) {
		if (failure == null) {
			return "result asked for a retry";
		}
		String message;
		try {
			message = failure.getMessage();
		}
		catch (RuntimeException ex) {
			// The failure's own bug must not become the caller's: log what can be read.
			message = "(getMessage() threw " + ex.getClass().getName() + ")";
		}
		return failure.getClass().getName() + ": " + message;
	}

}
