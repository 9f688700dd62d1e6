package dev.backoff.spring.observation;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.backoff.spring.operation.BackoffOperation;
import dev.backoff.spring.operation.CallObserver;
import dev.backoff.spring.operation.ObservedCall;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Observes {@code @Backoff} calls with Micrometer's Observation API: every call is a
 * {@code backoff.call} observation, and every attempt a {@code backoff.attempt} observation
 * under it, current on the thread (and, for Reactor, in the subscriber context) while the
 * attempt runs, so that what the attempt observes in turn (an HTTP client call, a nested
 * {@code @Backoff} call) nests under it. Names and keys come from the conventions.
 *
 * <p>Nothing here can change a call's result: a failure of a handler or a convention is
 * logged (at WARN the first time, then at DEBUG) and the call goes on unobserved from there.
 * When the registry is a no-op (no handler), calls run exactly as without observations.
 */
public final class BackoffObservations implements CallObserver {

	private static final Log logger = LogFactory.getLog(BackoffObservations.class);

	private static final BackoffObservationConvention DEFAULT_CALL = new DefaultBackoffObservationConvention();

	private static final BackoffAttemptObservationConvention DEFAULT_ATTEMPT = new DefaultBackoffAttemptObservationConvention();

	private final ObservationRegistry registry;

	private final @Nullable BackoffObservationConvention callConvention;

	private final @Nullable BackoffAttemptObservationConvention attemptConvention;

	private final AtomicBoolean warned = new AtomicBoolean();

	/**
	 * @param registry the registry to observe into
	 * @param callConvention the convention of {@code backoff.call}, or {@code null} for the
	 * registry's global one or the default
	 * @param attemptConvention the convention of {@code backoff.attempt}, or {@code null} for
	 * the registry's global one or the default
	 */
	public BackoffObservations(ObservationRegistry registry, @Nullable BackoffObservationConvention callConvention,
			@Nullable BackoffAttemptObservationConvention attemptConvention) {
		this.registry = registry;
		this.callConvention = callConvention;
		this.attemptConvention = attemptConvention;
	}

	/** @return Micrometer's key of the current observation in Reactor's context */
	@Override
	public Object contextKey() {
		return ObservationThreadLocalAccessor.KEY;
	}

	/** @return the registry observed into */
	public ObservationRegistry getRegistry() {
		return this.registry;
	}

	/**
	 * Starts observing one call.
	 * @param operation the method called
	 * @param parent the observation the call runs under, or {@code null} for the one current
	 * on this thread
	 * @return the call's observer, or {@code null} when the call is not observed (a no-op
	 * registry, a predicate that turned {@code backoff.call} off, or a failure to start)
	 */
	@Override
	public @Nullable ObservedCall start(BackoffOperation operation, @Nullable Object parent) {
		if (this.registry.isNoop()) {
			return null;
		}
		try {
			Observation call = Observation.createNotStarted(this.callConvention, DEFAULT_CALL,
					() -> new BackoffObservationContext(operation), this.registry);
			if (call.isNoop()) {
				return null;
			}
			Observation parentObservation = (parent instanceof Observation observation) ? observation : null;
			if (parentObservation != null) {
				call.parentObservation(parentObservation);
			}
			startUnder(operation, call, parentObservation);
			return new CallObservations(this, operation, call);
		}
		catch (RuntimeException ex) {
			failed("start", operation, ex);
			return null;
		}
	}

	/**
	 * Starts the observation of an attempt under the call's.
	 * @return it, or a no-op observation when a predicate turned {@code backoff.attempt} off
	 */
	Observation startAttempt(BackoffOperation operation, int attempt, Observation call) {
		Observation observation = Observation.createNotStarted(this.attemptConvention, DEFAULT_ATTEMPT,
				() -> new BackoffAttemptObservationContext(operation, attempt), this.registry);
		if (!observation.isNoop()) {
			observation.parentObservation(call);
			startUnder(operation, observation, call);
		}
		return observation;
	}

	/**
	 * Starts an observation with its parent current on this thread: tracing handlers prefer
	 * the thread's current span to the parent observation's when the two differ, and the
	 * thread may hold another (the HTTP request's, while a call's attempt starts).
	 */
	private void startUnder(BackoffOperation operation, Observation observation, @Nullable Observation parent) {
		if (parent == null) {
			startOrStop(observation);
			return;
		}
		Scoped scoped = scope(operation, parent);
		try {
			startOrStop(observation);
		}
		finally {
			scoped.close();
		}
	}

	/**
	 * Starts an observation; if a handler throws as it starts, stops it at once, so that the
	 * handlers that did start (a meter handler's samples) do not stay open, then rethrows.
	 */
	private static void startOrStop(Observation observation) {
		try {
			observation.start();
		}
		catch (RuntimeException ex) {
			try {
				observation.stop();
			}
			catch (RuntimeException stop) {
				ex.addSuppressed(stop);
			}
			throw ex;
		}
	}

	/**
	 * Makes {@code observation} current on this thread until the returned scope closes. A
	 * handler that throws as the scope opens or closes is reported, and the scope that was
	 * current before is put back, so that no observation stays current on the thread after
	 * the call.
	 */
	Scoped scope(BackoffOperation operation, Observation observation) {
		Observation.Scope previous = this.registry.getCurrentObservationScope();
		Observation.Scope scope = null;
		try {
			scope = observation.openScope();
		}
		catch (RuntimeException ex) {
			this.registry.setCurrentObservationScope(previous);
			failed("scope", operation, ex);
		}
		return new Scoped(operation, previous, scope);
	}

	/** Reports a failure inside observation handling, which the call itself never sees. */
	void failed(String what, BackoffOperation operation, RuntimeException ex) {
		String message = "Observing " + operation.getMethodTag() + " failed (" + what
				+ "); the call goes on, unaffected";
		if (this.warned.compareAndSet(false, true)) {
			logger.warn(message + " (logged at WARN once, then at DEBUG)", ex);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug(message, ex);
		}
	}

	/** An observation's scope, opened by {@link #scope}. */
	final class Scoped implements AutoCloseable {

		private final BackoffOperation operation;

		private final Observation.@Nullable Scope previous;

		private final Observation.@Nullable Scope scope;

		Scoped(BackoffOperation operation, Observation.@Nullable Scope previous, Observation.@Nullable Scope scope) {
			this.operation = operation;
			this.previous = previous;
			this.scope = scope;
		}

		@Override
		public void close() {
			if (this.scope == null) {
				return;
			}
			try {
				this.scope.close();
			}
			catch (RuntimeException ex) {
				BackoffObservations.this.registry.setCurrentObservationScope(this.previous);
				failed("scope", this.operation, ex);
			}
		}

	}

}
