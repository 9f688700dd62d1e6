package dev.backoff.spring;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

import dev.backoff.Sleeper;

/**
 * A {@link Sleeper} that counts the waits instead of sleeping: cheap enough for hundreds of
 * thousands of retries on many threads.
 */
public class CountingSleeper implements Sleeper {

	private final LongAdder sleeps = new LongAdder();

	@Override
	public void sleep(Duration delay) {
		this.sleeps.increment();
	}

	public long sleeps() {
		return this.sleeps.sum();
	}

}
