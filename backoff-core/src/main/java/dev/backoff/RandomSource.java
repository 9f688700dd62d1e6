package dev.backoff;

import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * Supplies the random generator for each call's {@link BackoffDelays}. The default is the
 * calling thread's {@link ThreadLocalRandom}: independent per client, never one shared
 * seeded generator, which would re-synchronise the clients that jitter should spread out.
 */
@FunctionalInterface
public interface RandomSource {

	/** The calling thread's {@link ThreadLocalRandom}. */
	RandomSource THREAD_LOCAL = ThreadLocalRandom::current;

	/** @return the generator to draw one call's delays from */
	RandomGenerator generator();

}
