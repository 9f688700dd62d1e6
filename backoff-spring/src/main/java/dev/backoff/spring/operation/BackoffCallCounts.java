package dev.backoff.spring.operation;

import java.util.Map;

/**
 * Live counts of a {@code @Backoff} method's calls by outcome, for the Actuator endpoint;
 * provided by the metrics auto-configuration, so that counting costs nothing extra on a call.
 */
@FunctionalInterface
public interface BackoffCallCounts {

	/**
	 * @param operation a resolved {@code @Backoff} method
	 * @return its calls so far, keyed by outcome tag value, e.g. {@code success_after_retry};
	 * an outcome that has not happened yet may be absent
	 */
	Map<String, Long> get(BackoffOperation operation);

}
