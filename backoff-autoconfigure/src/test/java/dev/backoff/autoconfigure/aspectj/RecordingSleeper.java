package dev.backoff.autoconfigure.aspectj;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.backoff.Sleeper;

/**
 * A {@link Sleeper} that records every wait instead of sleeping.
 */
class RecordingSleeper implements Sleeper {

	private final List<Duration> sleeps = new CopyOnWriteArrayList<>();

	@Override
	public void sleep(Duration delay) {
		this.sleeps.add(delay);
	}

	List<Duration> sleeps() {
		return this.sleeps;
	}

}
