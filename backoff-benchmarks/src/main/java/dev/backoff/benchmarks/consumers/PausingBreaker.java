package dev.backoff.benchmarks.consumers;

/**
 * The Resilience4j pattern that {@link ConsumerGroupModel} compares: one circuit breaker per
 * application instance around the listener's downstream call, whose state transitions pause
 * and resume the instance's whole listener container, as users wire it by hand (an
 * {@code onStateTransition} consumer calling {@code pause()} on {@code OPEN} and {@code resume()}
 * on {@code HALF_OPEN}/{@code CLOSED}).
 *
 * <p>A model of Resilience4j's {@code CircuitBreaker} with its published defaults, not the
 * library (whose clock and automatic transition run on real time): a count-based sliding window
 * of {@value #WINDOW} calls, which opens once it holds at least {@value #WINDOW} calls (its
 * default {@code minimumNumberOfCalls}) and at least {@value #FAILURE_RATE_PERCENT} % of them
 * failed; {@value #OPEN_MS} ms open; then half-open, where {@value #HALF_OPEN_CALLS} calls are
 * permitted and decide, at the same threshold, whether it closes (the window starts empty) or
 * opens again. The recipes must set {@code automaticTransitionFromOpenToHalfOpenEnabled}:
 * without it a paused consumer makes no call, so the breaker would never leave {@code OPEN};
 * here the transition happens when the wait ends, as that setting makes it. Not thread-safe:
 * the model runs on one thread.
 */
final class PausingBreaker {

	/** The sliding window's size, and the calls it needs before it may open. */
	static final int WINDOW = 100;

	/** The failure rate at which it opens. */
	static final int FAILURE_RATE_PERCENT = 50;

	/** How long it stays open: {@code waitDurationInOpenState}. */
	static final double OPEN_MS = 60_000;

	/** The calls permitted while half-open. */
	static final int HALF_OPEN_CALLS = 10;

	enum State {

		CLOSED, OPEN, HALF_OPEN

	}

	private final boolean[] window = new boolean[WINDOW];

	private int recorded;

	private int failures;

	private State state = State.CLOSED;

	private double openUntil;

	private int permitted;

	private int halfOpenRecorded;

	private int halfOpenFailures;

	private int opened;

	/**
	 * @param now the time in milliseconds
	 * @return the state at that time: {@code OPEN} turns {@code HALF_OPEN} when its wait is over
	 */
	State state(double now) {
		if (this.state == State.OPEN && now >= this.openUntil) {
			this.state = State.HALF_OPEN;
			this.permitted = 0;
			this.halfOpenRecorded = 0;
			this.halfOpenFailures = 0;
		}
		return this.state;
	}

	/** @return when an open breaker turns half-open, and the container resumes */
	double openUntil() {
		return this.openUntil;
	}

	/** @return how many times it opened */
	int opened() {
		return this.opened;
	}

	/**
	 * Asks to make a call ({@code tryAcquirePermission}).
	 * @param now the time in milliseconds
	 * @return whether the call may be made; {@code false}: it fails with
	 * {@code CallNotPermittedException}, without reaching the downstream
	 */
	boolean tryAcquire(double now) {
		return switch (state(now)) {
			case CLOSED -> true;
			case OPEN -> false;
			case HALF_OPEN -> this.permitted++ < HALF_OPEN_CALLS;
		};
	}

	/**
	 * Records a permitted call's outcome when it ends.
	 * @param now the time in milliseconds
	 * @param succeeded whether the call succeeded
	 */
	void record(double now, boolean succeeded) {
		switch (state(now)) {
			case CLOSED -> {
				int slot = this.recorded % WINDOW;
				if (this.recorded >= WINDOW && !this.window[slot]) {
					this.failures--;
				}
				this.window[slot] = succeeded;
				this.recorded++;
				this.failures += succeeded ? 0 : 1;
				if (this.recorded >= WINDOW && this.failures * 100 >= FAILURE_RATE_PERCENT * WINDOW) {
					open(now);
				}
			}
			case HALF_OPEN -> {
				this.halfOpenRecorded++;
				this.halfOpenFailures += succeeded ? 0 : 1;
				if (this.halfOpenRecorded == HALF_OPEN_CALLS) {
					if (this.halfOpenFailures * 100 >= FAILURE_RATE_PERCENT * HALF_OPEN_CALLS) {
						open(now);
					}
					else {
						this.state = State.CLOSED;
						this.recorded = 0;
						this.failures = 0;
					}
				}
			}
			case OPEN -> {
				// A call that started before it opened: in Resilience4j too its outcome changes nothing.
			}
		}
	}

	private void open(double now) {
		this.state = State.OPEN;
		this.openUntil = now + OPEN_MS;
		this.opened++;
	}

}
