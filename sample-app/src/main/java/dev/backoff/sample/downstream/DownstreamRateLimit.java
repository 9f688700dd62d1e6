package dev.backoff.sample.downstream;

import java.util.concurrent.atomic.LongAdder;

import org.springframework.stereotype.Component;

/**
 * The downstream's rate limit, off until set: a token bucket of {@code perSecond} tokens a
 * second holding at most one second's worth, so a client within the rate never sees a 429,
 * and one above it gets a 429 (without Retry-After, as many throttling services answer) for
 * each request the bucket has no token for. What it accepted and refused is counted apart from
 * the faults' stats. Thread-safe.
 */
@Component
public class DownstreamRateLimit {

	private double perSecond;

	private double tokens;

	private long last;

	private final LongAdder accepted = new LongAdder();

	private final LongAdder throttled = new LongAdder();

	/**
	 * @param perSecond the requests accepted per second, more than 0; 0 for no limit
	 * @return the limit now in force, with what it counted
	 */
	public synchronized RateLimitView set(double perSecond) {
		if (!(perSecond >= 0 && perSecond <= 100_000)) {
			throw new IllegalArgumentException("perSecond must be between 0 (no limit) and 100000, but was " + perSecond);
		}
		this.perSecond = perSecond;
		this.tokens = perSecond;
		this.last = System.nanoTime();
		return view();
	}

	/** @return whether the request is within the limit; counts it */
	public boolean tryAcquire() {
		boolean within;
		synchronized (this) {
			if (this.perSecond == 0) {
				return true;
			}
			long now = System.nanoTime();
			this.tokens = Math.min(this.perSecond, this.tokens + (now - this.last) * this.perSecond / 1e9);
			this.last = now;
			within = this.tokens >= 1;
			if (within) {
				this.tokens -= 1;
			}
		}
		((within) ? this.accepted : this.throttled).increment();
		return within;
	}

	/** Lifts the limit and clears the counts. */
	public synchronized void reset() {
		this.perSecond = 0;
		this.accepted.reset();
		this.throttled.reset();
	}

	/** @return the limit now in force, with what it counted */
	public synchronized RateLimitView view() {
		return new RateLimitView(this.perSecond, this.accepted.sum(), this.throttled.sum());
	}

	/**
	 * @param perSecond the requests accepted per second, 0 for no limit
	 * @param accepted the requests within the limit since the last reset
	 * @param throttled the requests answered 429 for it
	 */
	public record RateLimitView(double perSecond, long accepted, long throttled) {
	}

}
