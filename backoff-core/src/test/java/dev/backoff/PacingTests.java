package dev.backoff;

import java.time.Duration;
import java.util.Arrays;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * {@link Pacing}: dormant until throttled, then a CUBIC-shaped rate whose slots are reserved
 * one after the other, on a manual clock.
 */
class PacingTests {

	private final ManualNanoClock clock = new ManualNanoClock();

	private final Pacing pacing = new Pacing(this.clock);

	@Test
	void isDormantAndFreeUntilTheFirstThrottlingFailure() {
		for (int i = 0; i < 1000; i++) {
			assertThat(this.pacing.acquire()).isZero();
			this.pacing.onSuccess();
		}
		assertThat(this.pacing.isActive()).isFalse();
		this.pacing.onThrottled();
		assertThat(this.pacing.isActive()).isTrue();
	}

	@Test
	void aResetPaceSleepsUntilTheNextThrottlingFailureAndMeasuresAnew() {
		send(20, Duration.ofSeconds(1));
		this.pacing.onThrottled();
		this.pacing.acquire();
		this.pacing.reset();
		assertThat(this.pacing.isActive()).isFalse();
		// What it measures from now on, not what it was sending before: 10 a second.
		send(10, Duration.ofSeconds(1));
		assertThat(this.pacing.isActive()).isFalse();
		this.pacing.onThrottled();
		assertThat(this.pacing.rate()).isCloseTo(10 * Pacing.BETA, within(1e-9));
	}

	@Test
	void theFirstThrottlingFailureCutsTheRateToBetaOfTheRateSent() {
		send(20, Duration.ofSeconds(1));
		this.pacing.onThrottled();
		assertThat(this.pacing.rate()).isCloseTo(20 * Pacing.BETA, within(1e-9)).isEqualTo(17.0);
	}

	@Test
	void eachAttemptReservesItsSlotSoConcurrentCallersQueue() {
		send(20, Duration.ofSeconds(1));
		this.pacing.onThrottled();
		long interval = (long) (1e9 / 17.0);
		assertThat(this.pacing.acquire()).isZero();
		assertThat(this.pacing.acquire()).isEqualTo(interval);
		assertThat(this.pacing.acquire()).isEqualTo(2 * interval);
		// An idle client earns one slot's credit, never a burst.
		this.clock.advance(Duration.ofSeconds(10));
		assertThat(this.pacing.acquire()).isZero();
		assertThat(this.pacing.acquire()).isZero();
		assertThat(this.pacing.acquire()).isEqualTo(interval);
	}

	@Test
	void throttlingAnswersRightAfterACutDoNotCutAgain() {
		send(20, Duration.ofSeconds(1));
		this.pacing.onThrottled();
		send(17, Duration.ofMillis(500));
		this.pacing.onThrottled();
		assertThat(this.pacing.rate()).isCloseTo(17.0, within(1e-9));
		send(17, Duration.ofMillis(600));
		this.pacing.onThrottled();
		// Cut from the rate sent, 17 a second, measured.
		assertThat(this.pacing.rate()).isCloseTo(17.0 * Pacing.BETA, within(0.1));
	}

	@Test
	void successesGrowTheRateBackAlongTheCubic() {
		send(20, Duration.ofSeconds(1));
		this.pacing.onThrottled();
		// CUBIC's K: the rate is back at 20, where it was cut, this long after the cut.
		assertThat(Pacing.PLATEAU).isCloseTo(4.22, within(0.01));
		send(20, Duration.ofSeconds(4));
		this.pacing.onSuccess();
		assertThat(this.pacing.rate()).isCloseTo(20 * (1 + Pacing.SCALE * Math.pow(4 - Pacing.PLATEAU, 3)), within(1e-9))
			.isBetween(19.9, 20.0);
		send(20, Duration.ofSeconds(4));
		this.pacing.onSuccess();
		// Beyond it, a share of it: 20 × (1 + 0.002 × 3.78³).
		assertThat(this.pacing.rate()).isCloseTo(20 * (1 + Pacing.SCALE * Math.pow(8 - Pacing.PLATEAU, 3)), within(1e-9))
			.isBetween(22.0, 22.5);
	}

	@Test
	void aSlowClientProbesAsGentlyAsAFastOne() {
		Pacing fast = this.pacing;
		Pacing slow = new Pacing(this.clock);
		for (int i = 0; i < 20; i++) {
			for (int j = 0; j < 100; j++) {
				fast.acquire();
			}
			slow.acquire();
			this.clock.advance(Duration.ofSeconds(1));
		}
		fast.onThrottled();
		slow.onThrottled();
		for (int i = 0; i < 8; i++) {
			for (int j = 0; j < 85; j++) {
				fast.acquire();
			}
			slow.acquire();
			this.clock.advance(Duration.ofSeconds(1));
		}
		fast.onSuccess();
		slow.onSuccess();
		// 8 s after the cut, both are about 11 % above where they were cut (AWS's absolute growth,
		// 0.4 × (8 − K)³ a second, would have taken the slow one from 1 to about 3 a second).
		assertThat(fast.rate() / 100).isBetween(1.05, 1.2);
		assertThat(slow.rate() / 1).isBetween(1.05, 1.2);
	}

	@Test
	void anAttemptThatCannotWaitForItsSlotTakesNone() {
		send(20, Duration.ofSeconds(1));
		this.pacing.onThrottled();
		long interval = (long) (1e9 / 17.0);
		assertThat(this.pacing.acquire(0)).isZero();
		assertThat(this.pacing.acquire(interval - 1)).isEqualTo(-1);
		assertThat(this.pacing.acquire(interval)).isEqualTo(interval);
		assertThat(this.pacing.acquire()).isEqualTo(2 * interval);
	}

	@Test
	void neverGrowsBeyondTwiceTheRateSent() {
		send(20, Duration.ofSeconds(1));
		this.pacing.onThrottled();
		send(20, Duration.ofSeconds(30));
		this.pacing.onSuccess();
		// The cubic alone would be 20 × (1 + 0.002 × 25.8³), about 705.
		assertThat(this.pacing.rate()).isCloseTo(40.0, within(1e-4));
	}

	@Test
	void followsASteadyServerRateClosely() {
		// Eight workers, each sending its next attempt 10 ms after the last answer (800/s
		// unpaced) against a server that accepts 100 a second.
		Server server = new Server(100);
		PriorityQueue<long[]> workers = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
		long start = this.clock.nanoTime();
		for (int i = 0; i < 8; i++) {
			workers.add(new long[] { start + i * 1_000_000L });
		}
		long end = start + Duration.ofSeconds(120).toNanos();
		long measureFrom = start + Duration.ofSeconds(60).toNanos();
		int accepted = 0;
		int throttled = 0;
		while (true) {
			long[] worker = workers.poll();
			if (worker[0] >= end) {
				break;
			}
			this.clock.advance(Duration.ofNanos(worker[0] - this.clock.nanoTime()));
			long wait = this.pacing.acquire();
			this.clock.advance(Duration.ofNanos(wait));
			boolean ok = server.accept(this.clock.nanoTime());
			if (ok) {
				this.pacing.onSuccess();
			}
			else {
				this.pacing.onThrottled();
			}
			if (this.clock.nanoTime() >= measureFrom) {
				if (ok) {
					accepted++;
				}
				else {
					throttled++;
				}
			}
			worker[0] = this.clock.nanoTime() + 10_000_000L;
			workers.add(worker);
		}
		assertThat(accepted / 60.0).isGreaterThanOrEqualTo(95);
		assertThat(throttled / 60.0).isLessThanOrEqualTo(5);
	}

	@Test
	void concurrentCallersLoseNoCountAndShareNoSlot() throws InterruptedException {
		// Dormant: counted without a lock. No time passes, so the first throttle reads them all.
		inFourThreads(() -> this.pacing.acquire());
		this.clock.advance(Duration.ofSeconds(1));
		this.pacing.onThrottled();
		assertThat(this.pacing.rate()).isCloseTo(40_000 * Pacing.BETA, within(1e-6));
		// Active: each of the 40,000 takes a slot of its own, one interval after another.
		long[] waits = new long[40_000];
		AtomicInteger next = new AtomicInteger();
		inFourThreads(() -> waits[next.getAndIncrement()] = this.pacing.acquire());
		Arrays.sort(waits);
		long interval = (long) (1e9 / (40_000 * Pacing.BETA));
		for (int i = 0; i < waits.length; i++) {
			assertThat(waits[i]).isEqualTo(i * interval);
		}
	}

	private static void inFourThreads(Runnable action) throws InterruptedException {
		Thread[] threads = new Thread[4];
		for (int t = 0; t < threads.length; t++) {
			threads[t] = new Thread(() -> {
				for (int i = 0; i < 10_000; i++) {
					action.run();
				}
			});
			threads[t].start();
		}
		for (Thread thread : threads) {
			thread.join();
		}
	}

	/** Sends attempts at a steady rate for a while, regardless of the pace, so the rate sent is known. */
	private void send(int perSecond, Duration duration) {
		long step = 1_000_000_000L / perSecond;
		for (long elapsed = step; elapsed <= duration.toNanos(); elapsed += step) {
			this.clock.advance(Duration.ofNanos(step));
			this.pacing.acquire();
		}
	}

	/** Accepts up to its rate: a token bucket holding at most one second's tokens. */
	private static final class Server {

		private final double rate;

		private double tokens;

		private long last = Long.MIN_VALUE;

		Server(double rate) {
			this.rate = rate;
			this.tokens = rate;
		}

		boolean accept(long now) {
			if (this.last != Long.MIN_VALUE) {
				this.tokens = Math.min(this.rate, this.tokens + (now - this.last) * this.rate / 1e9);
			}
			this.last = now;
			if (this.tokens >= 1) {
				this.tokens--;
				return true;
			}
			return false;
		}

	}

}
