package dev.backoff.spring;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;

/**
 * The script of a test service's attempts, shared by the non-blocking suites: the first calls
 * fail (with an {@link IOException}, or an {@link AssertionError} as an {@code Error}), a
 * polled job becomes ready after some calls, and every failure and every failure handed to a
 * fallback is recorded.
 */
public abstract class ScriptedFailures {

	private final List<Throwable> failures = new CopyOnWriteArrayList<>();

	private final List<Throwable> fallbackFailures = new CopyOnWriteArrayList<>();

	private volatile int failFirst;

	private volatile boolean error;

	private volatile int readyAfter;

	public void failFirst(int failFirst) {
		this.failFirst = failFirst;
	}

	public void failWithError() {
		this.error = true;
	}

	public void readyAfter(int calls) {
		this.readyAfter = calls;
	}

	public List<Throwable> failures() {
		return this.failures;
	}

	public List<Throwable> fallbackFailures() {
		return this.fallbackFailures;
	}

	/** @return the failure of call {@code call} (from 1), recorded, or {@code null} when it succeeds */
	public @Nullable Throwable failureOf(int call) {
		if (call > this.failFirst) {
			return null;
		}
		Throwable failure = this.error ? new AssertionError("failure " + call) : new IOException("failure " + call);
		this.failures.add(failure);
		return failure;
	}

	/** @return whether a polled job is ready at call {@code call} */
	public boolean isReady(int call) {
		return call >= this.readyAfter;
	}

	/** Records a failure handed to a fallback. */
	public void fellBack(Throwable failure) {
		this.fallbackFailures.add(failure);
	}

}
