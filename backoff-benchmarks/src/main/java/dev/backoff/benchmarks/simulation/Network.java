package dev.backoff.benchmarks.simulation;

import java.util.random.RandomGenerator;

/**
 * The network of the simulations: every one-way hop between a client and the server takes
 * |Normal(10 ms, 2 ms)|, as in Brooker's experiment.
 */
public final class Network {

	/** The mean of one hop, in milliseconds. */
	public static final double HOP_MEAN_MS = 10;

	/** The standard deviation of one hop, in milliseconds. */
	public static final double HOP_SD_MS = 2;

	private Network() {
	}

	/**
	 * @param random the generator to draw from
	 * @return one one-way hop in milliseconds: |Normal(10, 2)|
	 */
	public static double hopMs(RandomGenerator random) {
		return Math.abs(HOP_MEAN_MS + HOP_SD_MS * random.nextGaussian());
	}

}
