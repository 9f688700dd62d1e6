package dev.backoff;

import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

import org.jspecify.annotations.Nullable;

/**
 * Calls a {@link BackoffListener} so that it cannot change the call it watches: whatever a
 * listener throws is reported once per listener (a warning on the {@code dev.backoff}
 * {@link System.Logger}) and otherwise ignored. Only a {@link VirtualMachineError} goes on: the
 * JVM can no longer promise anything.
 */
final class ListenerCalls {

	private static final System.Logger logger = System.getLogger("dev.backoff");

	/** The listeners already reported: weakly held, so that a discarded listener is not pinned. */
	private static final Map<Object, Boolean> reported = Collections.synchronizedMap(new WeakHashMap<>());

	private ListenerCalls() {
	}

	static void retryScheduled(BackoffListener listener, int attempt, Duration delay, @Nullable Throwable failure) {
		try {
			listener.onRetryScheduled(attempt, delay, failure);
		}
		catch (Throwable ex) {
			failed(listener, "onRetryScheduled", ex);
		}
	}

	static void retryAfter(BackoffListener listener, int attempt, Duration hint) {
		try {
			listener.onRetryAfter(attempt, hint);
		}
		catch (Throwable ex) {
			failed(listener, "onRetryAfter", ex);
		}
	}

	static void paced(BackoffListener listener, int attempt, Duration wait) {
		try {
			listener.onPaced(attempt, wait);
		}
		catch (Throwable ex) {
			failed(listener, "onPaced", ex);
		}
	}

	static void success(BackoffListener listener, Outcome outcome, int attempts) {
		try {
			listener.onSuccess(outcome, attempts);
		}
		catch (Throwable ex) {
			failed(listener, "onSuccess", ex);
		}
	}

	static void failure(BackoffListener listener, Outcome outcome, int attempts, @Nullable Throwable failure) {
		try {
			listener.onFailure(outcome, attempts, failure);
		}
		catch (Throwable ex) {
			failed(listener, "onFailure", ex);
		}
	}

	static void hedge(BackoffListener listener, HedgeEvent event, int attempt) {
		hedge(listener, event, attempt, null);
	}

	static void hedge(BackoffListener listener, HedgeEvent event, int attempt, @Nullable Throwable failure) {
		try {
			listener.onHedge(event, attempt, failure);
		}
		catch (Throwable ex) {
			failed(listener, "onHedge", ex);
		}
	}

	static void failed(BackoffListener listener, String event, Throwable ex) {
		failed(listener, "BackoffListener", event, ex);
	}

	/**
	 * Reports, once per {@code watcher}, that something beside the call (a listener, a
	 * method's {@link Latencies}) threw: the call goes on unchanged.
	 */
	static void failed(Object watcher, String kind, String event, Throwable ex) {
		if (ex instanceof VirtualMachineError error) {
			throw error;
		}
		if (reported.putIfAbsent(watcher, Boolean.TRUE) == null) {
			logger.log(System.Logger.Level.WARNING, kind + " " + watcher.getClass().getName() + " threw from " + event
					+ "; the call goes on unchanged, and further failures of it are not logged", ex);
		}
	}

}
