package dev.backoff;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.random.RandomGenerator;

/**
 * A {@link RandomGenerator} whose {@link #nextDouble()} returns scripted values, so that a
 * jitter formula can be checked to the nanosecond. Fails loudly when asked for more draws than
 * scripted, or for any other kind of draw.
 */
final class ScriptedRandom implements RandomGenerator {

	private final Deque<Double> doubles = new ArrayDeque<>();

	private int draws;

	ScriptedRandom(double... doubles) {
		for (double value : doubles) {
			this.doubles.add(value);
		}
	}

	@Override
	public double nextDouble() {
		Double next = this.doubles.poll();
		if (next == null) {
			throw new AssertionError("No scripted value left for draw " + (this.draws + 1));
		}
		this.draws++;
		return next;
	}

	@Override
	public long nextLong() {
		throw new AssertionError("Only nextDouble() is scripted");
	}

	/** @return the number of values drawn so far */
	int draws() {
		return this.draws;
	}

}
