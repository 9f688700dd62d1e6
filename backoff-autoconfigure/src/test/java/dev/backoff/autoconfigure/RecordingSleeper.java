package dev.backoff.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.backoff.Sleeper;

/**
 * A {@link Sleeper} that records every wait instead of sleeping, and can be told to be
 * interrupted during the next one.
 */
class RecordingSleeper implements Sleeper {

	private final List<Duration> sleeps = new CopyOnWriteArrayList<>();

	private volatile boolean interruptNext;

	@Override
	public void sleep(Duration delay) throws InterruptedException {
		this.sleeps.add(delay);
		if (this.interruptNext) {
			this.interruptNext = false;
			throw new InterruptedException("interrupted by the test");
		}
	}

	List<Duration> sleeps() {
		return this.sleeps;
	}

	/** Makes the next {@link #sleep} throw {@link InterruptedException}, as a real sleep would. */
	void interruptNextSleep() {
		this.interruptNext = true;
	}

}
