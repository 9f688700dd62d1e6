package dev.backoff.spring.events;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The last {@code capacity} events of one policy, lock-free: a writer takes the next number
 * and writes its slot, overwriting the event {@code capacity} numbers older. A reader walks
 * back from the newest number and keeps an event only when its slot still holds that
 * number's, so that it never shows one twice nor out of order while writers overtake it; an
 * event being written as it reads may be missed, as one written just after would be.
 */
final class EventRing {

	private final AtomicLong next = new AtomicLong();

	private final AtomicReferenceArray<Entry> slots;

	EventRing(int capacity) {
		this.slots = new AtomicReferenceArray<>(capacity);
	}

	void add(BackoffEvent event) {
		long number = this.next.getAndIncrement();
		this.slots.set(slot(number), new Entry(number, event));
	}

	/** @return the events held, newest first */
	List<BackoffEvent> newestFirst() {
		int capacity = this.slots.length();
		long newest = this.next.get() - 1;
		List<BackoffEvent> events = new ArrayList<>((int) Math.min(capacity, newest + 1));
		for (long number = newest; number >= 0 && number > newest - capacity; number--) {
			Entry entry = this.slots.get(slot(number));
			if (entry != null && entry.number() == number) {
				events.add(entry.event());
			}
		}
		return events;
	}

	int capacity() {
		return this.slots.length();
	}

	private int slot(long number) {
		return (int) (number % this.slots.length());
	}

	private record Entry(long number, BackoffEvent event) {
	}

}
