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
 * generator is the <em>server's</em> dice; the clients' jitter never shares one.) Last,
 * {@code slowNext}, then {@code slowRate} drawing from the same generator, decide whether a
 * request that is otherwise answered normally is answered only after {@code slowDelay}: the
 * latency tail that hedged requests cut.
 * Each such request takes exactly one draw, so after R of them, concurrent or not, the slow ones
 * are those of the generator's first R values below the rate.
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
		DISCONNECT,

		/** Answer normally, but only after {@code slowDelay}: the latency tail. */
		SLOW

	}

	/** The longest {@code slowDelay}: well within a servlet container's default async timeout of 30 s. */
	static final Duration MAX_SLOW_DELAY = Duration.ofSeconds(10);

	private final long seed;

	private final AtomicInteger failNext = new AtomicInteger();

	private final AtomicInteger slowNext = new AtomicInteger();

	private final AtomicInteger throttleNext = new AtomicInteger();

	private final AtomicInteger disconnectNext = new AtomicInteger();

	private volatile double failureRate;

	private volatile Duration retryAfter = Duration.ofSeconds(1);

	private volatile double slowRate;

	private volatile Duration slowDelay = Duration.ZERO;

	/** Guarded by itself: one draw at a time keeps a sequential run reproducible. */
	private Random random;

	private final LongAdder requests = new LongAdder();

	private final LongAdder ok = new LongAdder();

	private final LongAdder unavailable = new LongAdder();

	private final LongAdder throttled = new LongAdder();

	private final LongAdder disconnected = new LongAdder();

	private final LongAdder notFound = new LongAdder();

	private final LongAdder badRequest = new LongAdder();

	private final LongAdder slow = new LongAdder();

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
	 * @param slowNext the next requests otherwise answered normally to answer late
	 * @param slowRate the share of the other requests otherwise answered normally to answer late, in [0, 1]
	 * @param slowDelay how late, from 0 to {@link #MAX_SLOW_DELAY}
	 * @return the faults now in force
	 */
	public FaultsView update(@Nullable Integer failNext, @Nullable Integer throttleNext,
			@Nullable Integer disconnectNext, @Nullable Double failureRate, @Nullable Duration retryAfter,
			@Nullable Integer slowNext, @Nullable Double slowRate, @Nullable Duration slowDelay) {
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
		if (slowNext != null) {
			this.slowNext.set(requireNotNegative("slowNext", slowNext));
		}
		if (slowRate != null) {
			if (!(slowRate >= 0.0 && slowRate <= 1.0)) {
				throw new IllegalArgumentException("slowRate must be between 0 and 1, but was " + slowRate);
			}
			this.slowRate = slowRate;
		}
		if (slowDelay != null) {
			if (slowDelay.isNegative() || slowDelay.compareTo(MAX_SLOW_DELAY) > 0) {
				throw new IllegalArgumentException("slowDelay must be between 0 and " + MAX_SLOW_DELAY.toSeconds()
						+ "s, but was " + slowDelay.toMillis() + "ms");
			}
			this.slowDelay = slowDelay;
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
		this.slowNext.set(0);
		this.slowRate = 0;
		this.slowDelay = Duration.ZERO;
		synchronized (this) {
			this.random = new Random(this.seed);
		}
		for (LongAdder counter : new LongAdder[] { this.requests, this.ok, this.unavailable, this.throttled,
				this.disconnected, this.notFound, this.badRequest, this.slow }) {
			counter.reset();
		}
	}

	/** @return the faults now in force */
	public FaultsView faults() {
		return new FaultsView(this.failNext.get(), this.throttleNext.get(), this.disconnectNext.get(), this.failureRate,
				this.retryAfter.toSeconds(), this.slowNext.get(), this.slowRate, this.slowDelay.toMillis());
	}

	/** @return what the downstream has received and answered since the last reset */
	public StatsView stats() {
		return new StatsView(this.requests.sum(), this.ok.sum(), this.unavailable.sum(), this.throttled.sum(),
				this.disconnected.sum(), this.notFound.sum(), this.badRequest.sum(), this.slow.sum());
	}

	/** @return the Retry-After of a 429 */
	Duration retryAfter() {
		return this.retryAfter;
	}

	/** @return how late a {@link Fault#SLOW} answer is sent */
	Duration slowDelay() {
		return this.slowDelay;
	}

	/** Counts a well-formed request and decides its fault. */
	Fault next() {
		this.requests.increment();
		Fault fault = decide();
		switch (fault) {
			case UNAVAILABLE -> this.unavailable.increment();
			case THROTTLED -> this.throttled.increment();
			case DISCONNECT -> this.disconnected.increment();
			case SLOW -> this.slow.increment();
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
		if (take(this.slowNext)) {
			return Fault.SLOW;
		}
		double slowRate = this.slowRate;
		if (slowRate > 0) {
			synchronized (this) {
				if (this.random.nextDouble() < slowRate) {
					return Fault.SLOW;
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
			long retryAfterSeconds, int slowNext, double slowRate, long slowDelayMillis) {
	}

	/**
	 * Requests received, by how they were answered; {@code requests} is the sum of {@code ok} to
	 * {@code badRequest}. {@code slow} counts those answered late, each also counted by its
	 * answer ({@code ok} or {@code notFound}) as it was received.
	 */
	public record StatsView(long requests, long ok, long unavailable, long throttled, long disconnected,
			long notFound, long badRequest, long slow) {
	}

}
