package dev.backoff.spring.events;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.backoff.spring.events.BackoffEvent.Kind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link EventRing}: bounded, newest first, whole events only, under concurrent writers too.
 */
class EventRingTests {

	@Test
	void holdsEveryEventNewestFirstUntilFull() {
		EventRing ring = new EventRing(4);
		ring.add(event("a", 1));
		ring.add(event("a", 2));
		assertThat(attempts(ring.newestFirst())).containsExactly(2, 1);
	}

	@Test
	void keepsOnlyTheLastCapacityEventsOnceItWrapsAround() {
		EventRing ring = new EventRing(3);
		for (int i = 1; i <= 8; i++) {
			ring.add(event("a", i));
		}
		assertThat(attempts(ring.newestFirst())).containsExactly(8, 7, 6);
	}

	@Test
	void anEmptyRingHasNoEvents() {
		assertThat(new EventRing(3).newestFirst()).isEmpty();
	}

	@Test
	void concurrentWritersLeaveAtMostCapacityEventsEachWritersNewestFirst() throws Exception {
		int writers = 4;
		int each = 10_000;
		EventRing ring = new EventRing(64);
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService pool = Executors.newFixedThreadPool(writers);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int w = 0; w < writers; w++) {
				String writer = "w" + w;
				done.add(pool.submit(() -> {
					start.await();
					for (int i = 1; i <= each; i++) {
						ring.add(event(writer, i));
					}
					return null;
				}));
			}
			start.countDown();
			// A reader while they write: never more than the capacity, never one event twice.
			for (int reads = 0; reads < 100; reads++) {
				List<BackoffEvent> seen = ring.newestFirst();
				assertThat(seen).hasSizeLessThanOrEqualTo(64).doesNotHaveDuplicates();
				assertEachWritersNewestFirst(seen, writers);
			}
			for (Future<?> writer : done) {
				writer.get();
			}
		}
		finally {
			pool.shutdownNow();
		}
		List<BackoffEvent> last = ring.newestFirst();
		assertThat(last).hasSize(64).doesNotHaveDuplicates();
		assertEachWritersNewestFirst(last, writers);
		// The newest event of all is some writer's last.
		assertThat(last.get(0).attempt()).isEqualTo(each);
	}

	private static void assertEachWritersNewestFirst(List<BackoffEvent> events, int writers) {
		for (int w = 0; w < writers; w++) {
			String writer = "w" + w;
			List<Integer> its = attempts(events.stream().filter((event) -> writer.equals(event.method())).toList());
			assertThat(its).isSortedAccordingTo((a, b) -> Integer.compare(b, a));
		}
	}

	private static List<Integer> attempts(List<BackoffEvent> events) {
		return events.stream().map(BackoffEvent::attempt).toList();
	}

	private static BackoffEvent event(String method, int attempt) {
		return new BackoffEvent(Instant.EPOCH, Kind.HEDGE_SENT, method, attempt, null, false, null, null, null,
				Map.of());
	}

}
