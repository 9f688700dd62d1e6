package dev.backoff.benchmarks.consumers;

/**
 * The Resilience4j pattern that {@link ConsumerGroupModel} compares: one circuit breaker per
 * application instance around the listener's downstream call, whose state transitions pause
 * and resume the instance's whole listener container, as users wire it by hand (an
 * {@code onStateTransition} consumer calling {@code pause()} on {@code OPEN} and {@code resume()}
 * on {@code HALF_OPEN}/{@code CLOSED}).
 *
 * <p>A model of Resilience4j's {@code CircuitBreaker}, not the library (whose clock and
 * automatic transition run on real time), with its {@link Settings#DEFAULTS published defaults}
 * or a {@link Settings#RECIPE recipe's}: a count-based sliding window, which opens once it holds
 * at least the minimum calls and at least {@value #FAILURE_RATE_PERCENT} % of those it holds
 * failed; open for a while; then half-open, where a few calls are permitted and decide, at the
 * same threshold, whether it closes (the window starts empty) or opens again. The recipes must set {@code automaticTransitionFromOpenToHalfOpenEnabled}:
 * without it a paused consumer makes no call, so the breaker would never leave {@code OPEN};
 * here the transition happens when the wait ends, as that setting makes it. Not thread-safe:
 * the model runs on one thread.
 */
final class PausingBreaker {

	/** The failure rate at which it opens. */
	static final int FAILURE_RATE_PERCENT = 50;

	/**
	 * A breaker's settings.
	 * @param window the count-based sliding window's size ({@code slidingWindowSize})
	 * @param minimumCalls the calls it must hold before it may open ({@code minimumNumberOfCalls})
	 * @param openMs how long it stays open ({@code waitDurationInOpenState})
	 * @param halfOpenCalls the calls permitted while half-open ({@code permittedNumberOfCallsInHalfOpenState})
	 */
	record Settings(int window, int minimumCalls, double openMs, int halfOpenCalls) {

		/** Resilience4j's published defaults: 100, 100, 60 s, 10. */
		static final Settings DEFAULTS = new Settings(100, 100, 60_000, 10);

		/** A published recipe's for pausing a Kafka consumer: 10, 5, 30 s, 3. */
		static final Settings RECIPE = new Settings(10, 5, 30_000, 3);

	}

	enum State {

		CLOSED, OPEN, HALF_OPEN

	}

	private final Settings settings;

	private final boolean[] window;

	private int recorded;

	private int failures;

	private State state = State.CLOSED;

	private double openUntil;

	private int permitted;

	private int halfOpenRecorded;

	private int halfOpenFailures;

	private int opened;

	PausingBreaker(Settings settings) {
		this.settings = settings;
		this.window = new boolean[settings.window()];
	}

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
			case HALF_OPEN -> this.permitted++ < this.settings.halfOpenCalls();
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
				int size = this.window.length;
				int slot = this.recorded % size;
				if (this.recorded >= size && !this.window[slot]) {
					this.failures--;
				}
				this.window[slot] = succeeded;
				this.recorded++;
				this.failures += succeeded ? 0 : 1;
				int held = Math.min(this.recorded, size);
				if (this.recorded >= this.settings.minimumCalls() && this.failures * 100 >= FAILURE_RATE_PERCENT * held) {
					open(now);
				}
			}
			case HALF_OPEN -> {
				this.halfOpenRecorded++;
				this.halfOpenFailures += succeeded ? 0 : 1;
				if (this.halfOpenRecorded == this.settings.halfOpenCalls()) {
					if (this.halfOpenFailures * 100 >= FAILURE_RATE_PERCENT * this.settings.halfOpenCalls()) {
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
		this.openUntil = now + this.settings.openMs();
		this.opened++;
	}

}
