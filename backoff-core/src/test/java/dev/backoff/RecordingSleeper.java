package dev.backoff;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A {@link Sleeper} that records each wait instead of sleeping and, when given a clock,
 * advances it by the wait as a real sleep would.
 */
final class RecordingSleeper implements Sleeper {

	private final List<Duration> sleeps = new ArrayList<>();

	private final @Nullable ManualNanoClock clock;

	RecordingSleeper() {
		this(null);
	}

	RecordingSleeper(@Nullable ManualNanoClock clock) {
		this.clock = clock;
	}

	@Override
	public void sleep(Duration delay) {
		this.sleeps.add(delay);
		if (this.clock != null) {
			this.clock.advance(delay);
		}
	}

	List<Duration> sleeps() {
		return this.sleeps;
	}

}
