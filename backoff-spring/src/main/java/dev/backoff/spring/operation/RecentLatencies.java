package dev.backoff.spring.operation;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import dev.backoff.Latencies;
import dev.backoff.NanoClock;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.TimeWindowPercentileHistogram;
import org.jspecify.annotations.Nullable;

/**
 * One method's recent answer times, for a hedge delay that follows them
 * ({@code hedge-percentile}): Micrometer's time-window percentile histogram (HdrHistogram),
 * the one behind a timer's published percentiles, over the last 40 to 60 seconds. The fixed
 * {@code hedge-delay} applies until the method has answered {@value #WARM_UP} times, and while
 * it has not answered within the window. Timed by the executor's clock, so that tests drive it.
 * Spring keeps one per hedged method; public for {@code executeAsync(call, latencies, ...)}
 * outside Spring's methods (the hedging simulation uses it).
 */
public final class RecentLatencies implements Latencies {

	/** Answers before the percentile is trusted: with fewer, p95 is the noise of the slowest few. */
	static final int WARM_UP = 100;

	/** The window: three buckets of 20 seconds, the oldest dropped as each fills. */
	static final Duration WINDOW = Duration.ofMinutes(1);

	/** How long a percentile read serves: a read merges the window's buckets, too costly per call. */
	static final long REREAD_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final double percentile;

	private final NanoClock clock;

	private final TimeWindowPercentileHistogram histogram;

	private final LongAdder answers = new LongAdder();

	private final Object readLock = new Object();

	private long readAt;

	private @Nullable Duration read;

	/**
	 * @param percentile the percentile that the hedge delay is, 95 for p95
	 * @param clock the executor's clock ({@code BackoffExecutor.getClock()}): it times the answers
	 */
	public RecentLatencies(double percentile, NanoClock clock) {
		this.percentile = percentile;
		this.clock = clock;
		DistributionStatisticConfig config = DistributionStatisticConfig.builder()
			.percentiles(percentile / 100)
			// Two significant digits: a delay within 1% of the percentile.
			.percentilePrecision(2)
			.expiry(WINDOW)
			.bufferLength(3)
			.build()
			.merge(DistributionStatisticConfig.DEFAULT);
		this.histogram = new TimeWindowPercentileHistogram(new ExecutorClock(clock), config, false);
		this.readAt = clock.nanoTime() - REREAD_NANOS;
	}

	/** @return the percentile these times give, 95 for p95 */
	public double percentile() {
		return this.percentile;
	}

	/**
	 * @param percentile the one these times were made for ({@link #percentile()})
	 * @throws IllegalArgumentException for another: a histogram reads only the percentile it
	 * was configured with
	 */
	@Override
	public @Nullable Duration percentile(double percentile) {
		if (percentile != this.percentile) {
			throw new IllegalArgumentException("These answer times give p" + this.percentile + ", not p" + percentile
					+ ": make a RecentLatencies for each percentile");
		}
		if (this.answers.sum() < WARM_UP) {
			return null;
		}
		synchronized (this.readLock) {
			long now = this.clock.nanoTime();
			if (now - this.readAt >= REREAD_NANOS) {
				double nanos = this.histogram.takeSnapshot(0, 0, 0).percentileValues()[0].value();
				// None within the window: 0.
				this.read = (nanos >= 1) ? Duration.ofNanos((long) nanos) : null;
				this.readAt = now;
			}
			return this.read;
		}
	}

	@Override
	public void record(long nanos) {
		this.histogram.recordLong(Math.max(nanos, 1));
		this.answers.increment();
	}

	/** The executor's clock as Micrometer's, for the window's turns. */
	private record ExecutorClock(NanoClock clock) implements Clock {

		@Override
		public long wallTime() {
			return TimeUnit.NANOSECONDS.toMillis(this.clock.nanoTime());
		}

		@Override
		public long monotonicTime() {
			return this.clock.nanoTime();
		}

	}

}
