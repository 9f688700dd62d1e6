package dev.backoff.sample.downstream;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import org.jspecify.annotations.Nullable;

import dev.backoff.sample.SampleProperties;

import org.springframework.stereotype.Component;

/**
 * The faults the stand-in downstream service injects, and the requests it has received.
 *
 * <p>Deterministic by design: "fail the next N" counters are spent first, in the order
 * disconnect, unavailable, throttled; then {@code failureRate} draws from one generator seeded
 * with {@code sample.downstream.seed}, so a sequential run replays the same failures. (That
 * generator is the <em>server's</em> dice; the clients' jitter never shares one.)
 */
@Component
public class DownstreamFaults {

	/** What the downstream does with one request. */
	public enum Fault {

		/** Answer normally. */
		NONE,

		/** 503 Service Unavailable. */
		UNAVAILABLE,

		/** 429 Too Many Requests with a Retry-After header. */
		THROTTLED,

		/** Promise a body, send part of it and close the connection: an I/O error at the client. */
		DISCONNECT

	}

	private final long seed;

	private final AtomicInteger failNext = new AtomicInteger();

	private final AtomicInteger throttleNext = new AtomicInteger();

	private final AtomicInteger disconnectNext = new AtomicInteger();

	private volatile double failureRate;

	private volatile Duration retryAfter = Duration.ofSeconds(1);

	/** Guarded by itself: one draw at a time keeps a sequential run reproducible. */
	private Random random;

	private final LongAdder requests = new LongAdder();

	private final LongAdder ok = new LongAdder();

	private final LongAdder unavailable = new LongAdder();

	private final LongAdder throttled = new LongAdder();

	private final LongAdder disconnected = new LongAdder();

	private final LongAdder notFound = new LongAdder();

	private final LongAdder badRequest = new LongAdder();

	public DownstreamFaults(SampleProperties properties) {
		this.seed = properties.getDownstream().getSeed();
		this.random = new Random(this.seed);
	}

	/**
	 * Changes the faults; a {@code null} argument keeps that setting.
	 * @param failNext the next requests to answer 503
	 * @param throttleNext the next requests to answer 429
	 * @param disconnectNext the next requests to cut off mid-body
	 * @param failureRate the share of the other requests to answer 503, in [0, 1]
	 * @param retryAfter the Retry-After of a 429, whole seconds
	 * @return the faults now in force
	 */
	public FaultsView update(@Nullable Integer failNext, @Nullable Integer throttleNext,
			@Nullable Integer disconnectNext, @Nullable Double failureRate, @Nullable Duration retryAfter) {
		if (failNext != null) {
			this.failNext.set(requireNotNegative("failNext", failNext));
		}
		if (throttleNext != null) {
			this.throttleNext.set(requireNotNegative("throttleNext", throttleNext));
		}
		if (disconnectNext != null) {
			this.disconnectNext.set(requireNotNegative("disconnectNext", disconnectNext));
		}
		if (failureRate != null) {
			if (!(failureRate >= 0.0 && failureRate <= 1.0)) {
				throw new IllegalArgumentException("failureRate must be between 0 and 1, but was " + failureRate);
			}
			this.failureRate = failureRate;
		}
		if (retryAfter != null) {
			if (retryAfter.isNegative()) {
				throw new IllegalArgumentException("retryAfter must not be negative, but was " + retryAfter);
			}
			this.retryAfter = retryAfter;
		}
		return faults();
	}

	/** Clears every fault and count, and re-seeds the failure-rate generator. */
	public void reset() {
		this.failNext.set(0);
		this.throttleNext.set(0);
		this.disconnectNext.set(0);
		this.failureRate = 0;
		this.retryAfter = Duration.ofSeconds(1);
		synchronized (this) {
			this.random = new Random(this.seed);
		}
		for (LongAdder counter : new LongAdder[] { this.requests, this.ok, this.unavailable, this.throttled,
				this.disconnected, this.notFound, this.badRequest }) {
			counter.reset();
		}
	}

	/** @return the faults now in force */
	public FaultsView faults() {
		return new FaultsView(this.failNext.get(), this.throttleNext.get(), this.disconnectNext.get(), this.failureRate,
				this.retryAfter.toSeconds());
	}

	/** @return what the downstream has received and answered since the last reset */
	public StatsView stats() {
		return new StatsView(this.requests.sum(), this.ok.sum(), this.unavailable.sum(), this.throttled.sum(),
				this.disconnected.sum(), this.notFound.sum(), this.badRequest.sum());
	}

	/** @return the Retry-After of a 429 */
	Duration retryAfter() {
		return this.retryAfter;
	}

	/** Counts a well-formed request and decides its fault. */
	Fault next() {
		this.requests.increment();
		Fault fault = decide();
		switch (fault) {
			case UNAVAILABLE -> this.unavailable.increment();
			case THROTTLED -> this.throttled.increment();
			case DISCONNECT -> this.disconnected.increment();
			default -> {
			}
		}
		return fault;
	}

	void answeredOk() {
		this.ok.increment();
	}

	void answeredNotFound() {
		this.notFound.increment();
	}

	/** Counts a malformed request, answered 400 before any fault is drawn. */
	void answeredBadRequest() {
		this.requests.increment();
		this.badRequest.increment();
	}

	private Fault decide() {
		if (take(this.disconnectNext)) {
			return Fault.DISCONNECT;
		}
		if (take(this.failNext)) {
			return Fault.UNAVAILABLE;
		}
		if (take(this.throttleNext)) {
			return Fault.THROTTLED;
		}
		double rate = this.failureRate;
		if (rate > 0) {
			synchronized (this) {
				if (this.random.nextDouble() < rate) {
					return Fault.UNAVAILABLE;
				}
			}
		}
		return Fault.NONE;
	}

	private static boolean take(AtomicInteger remaining) {
		return remaining.getAndUpdate((n) -> (n > 0) ? n - 1 : 0) > 0;
	}

	private static int requireNotNegative(String name, int value) {
		if (value < 0) {
			throw new IllegalArgumentException(name + " must not be negative, but was " + value);
		}
		return value;
	}

	/** The faults in force. */
	public record FaultsView(int failNext, int throttleNext, int disconnectNext, double failureRate,
			long retryAfterSeconds) {
	}

	/** Requests received, by how they were answered; {@code requests} is their sum. */
	public record StatsView(long requests, long ok, long unavailable, long throttled, long disconnected,
			long notFound, long badRequest) {
	}

}
