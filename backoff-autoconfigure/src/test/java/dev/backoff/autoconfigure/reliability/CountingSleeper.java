package dev.backoff.autoconfigure.reliability;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

import dev.backoff.Sleeper;

/**
 * A {@link Sleeper} that counts the waits instead of sleeping: cheap enough for hundreds of
 * thousands of retries on many threads.
 */
class CountingSleeper implements Sleeper {

	private final LongAdder sleeps = new LongAdder();

	@Override
	public void sleep(Duration delay) {
		this.sleeps.increment();
	}

	long sleeps() {
		return this.sleeps.sum();
	}

}
