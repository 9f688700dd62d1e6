package dev.backoff.spring.operation;

import org.jspecify.annotations.Nullable;

/**
 * The extension point around each {@code @Backoff} call and each of its attempts, for what
 * must wrap an attempt rather than hear of it afterwards: Micrometer observations, whose
 * attempt is current on the thread (or in Reactor's context) while it runs, so that what the
 * attempt does in turn nests under it. What only needs the call's events (meters, logging, a
 * test's recorder) is a {@link dev.backoff.BackoffListener} from a {@link BackoffListenerFactory}
 * instead. Keeps the operation free of any one observation API.
 */
public interface CallObserver {

	/**
	 * Starts observing one call. Must not throw: a failure to observe must not change the call.
	 * @param operation the method called
	 * @param parent what the call runs under: for a reactive call, the value under
	 * {@link #contextKey()} in its subscriber's context; {@code null} for whatever is current
	 * on the thread
	 * @return the call's observation, or {@code null} to run the call unobserved
	 */
	@Nullable ObservedCall start(BackoffOperation operation, @Nullable Object parent);

	/**
	 * @return the key under which a reactive call finds its parent in its subscriber's
	 * context, and under which each attempt puts its own for what it subscribes to
	 */
	Object contextKey();

}
