package dev.backoff;

import java.time.Duration;

/** A {@link NanoClock} that moves only when told to. */
public final class ManualNanoClock implements NanoClock {

	// Not zero: the executor must only ever use differences between readings.
	private long now = 1_000_000_000L;

	@Override
	public long nanoTime() {
		return this.now;
	}

	public void advance(Duration duration) {
		this.now += duration.toNanos();
	}

}
