package dev.backoff.spring.operation;

import dev.backoff.BackoffListener;

/**
 * Creates the listener of one {@code @Backoff} method, once, at start-up: for listeners that
 * need to know the method and its policy, such as meters tagged with both. Beans of this type
 * are picked up; plain {@link BackoffListener} beans receive the events of every method.
 */
@FunctionalInterface
public interface BackoffListenerFactory {

	/**
	 * @param operation the method and its effective policy
	 * @return the listener for that method's calls, or {@link BackoffListener#NONE}
	 */
	BackoffListener create(BackoffOperation operation);

}
