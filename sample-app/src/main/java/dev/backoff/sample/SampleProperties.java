package dev.backoff.sample;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the sample's simulated world: the stand-in downstream service, the network
 * between a client and the database, and the jobs. The retry policies themselves are under
 * {@code backoff.*}.
 */
@ConfigurationProperties("sample")
public class SampleProperties {

	/**
	 * The stand-in remote service.
	 */
	private final Downstream downstream = new Downstream();

	/**
	 * The counters table, scenario 2 and the contention experiment.
	 */
	private final Counters counters = new Counters();

	/**
	 * The asynchronous jobs.
	 */
	private final Jobs jobs = new Jobs();

	public Downstream getDownstream() {
		return this.downstream;
	}

	public Counters getCounters() {
		return this.counters;
	}

	public Jobs getJobs() {
		return this.jobs;
	}

	/**
	 * Settings of the stand-in remote service.
	 */
	public static class Downstream {

		/**
		 * Base URL the quote client calls. Unset: this application's own server, at the port
		 * it actually listens on.
		 */
		private @Nullable String baseUrl;

		/**
		 * Seed of the generator behind 'failure-rate', so that a run's failures can be replayed.
		 */
		private long seed = 42;

		public @Nullable String getBaseUrl() {
			return this.baseUrl;
		}

		public void setBaseUrl(@Nullable String baseUrl) {
			this.baseUrl = baseUrl;
		}

		public long getSeed() {
			return this.seed;
		}

		public void setSeed(long seed) {
			this.seed = seed;
		}

	}

	/**
	 * Settings of the counters table.
	 */
	public static class Counters {

		/**
		 * Simulated network time between reading a row and writing it back: the window in
		 * which another client can commit first.
		 */
		private Duration latency = Duration.ofMillis(25);

		public Duration getLatency() {
			return this.latency;
		}

		public void setLatency(Duration latency) {
			this.latency = latency;
		}

	}

	/**
	 * Settings of the asynchronous jobs.
	 */
	public static class Jobs {

		/**
		 * Number of polls after which a job started without its own setting is ready.
		 */
		private int readyAfterPolls = 3;

		public int getReadyAfterPolls() {
			return this.readyAfterPolls;
		}

		public void setReadyAfterPolls(int readyAfterPolls) {
			this.readyAfterPolls = readyAfterPolls;
		}

	}

}
