package dev.backoff;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;

/**
 * A {@link Sleeper} that records each wait instead of sleeping; when given a clock, advances
 * it by the wait as a real sleep would; and can be told to be interrupted during the next
 * wait. Shared with the other modules' tests through this module's test jar.
 */
public final class RecordingSleeper implements Sleeper {

	private final List<Duration> sleeps = new CopyOnWriteArrayList<>();

	private final @Nullable ManualNanoClock clock;

	private volatile boolean interruptNext;

	public RecordingSleeper() {
		this(null);
	}

	public RecordingSleeper(@Nullable ManualNanoClock clock) {
		this.clock = clock;
	}

	@Override
	public void sleep(Duration delay) throws InterruptedException {
		this.sleeps.add(delay);
		if (this.clock != null) {
			this.clock.advance(delay);
		}
		if (this.interruptNext) {
			this.interruptNext = false;
			throw new InterruptedException("interrupted by the test");
		}
	}

	/** @return every wait so far, in order */
	public List<Duration> sleeps() {
		return this.sleeps;
	}

	/** Makes the next {@link #sleep} throw {@link InterruptedException}, as a real sleep would. */
	public void interruptNextSleep() {
		this.interruptNext = true;
	}

}
