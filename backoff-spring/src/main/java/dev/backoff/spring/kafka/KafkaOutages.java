package dev.backoff.spring.kafka;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import dev.backoff.NanoClock;
import dev.backoff.RandomSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * The outages of the Kafka listeners wired under a policy: one per application, shared by every
 * listener's wiring. It lists each listener with its state ({@link #listeners()}) and tells the
 * {@link KafkaOutageListener}s added to it what the outages do.
 */
public final class KafkaOutages implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(KafkaOutages.class);

	private final List<KafkaOutageListener> outageListeners = new CopyOnWriteArrayList<>();

	/** Every listener wired under a policy, by id, in the order they were wired. */
	private final Map<String, Wired> wired = new ConcurrentHashMap<>();

	private final Clock clock;

	private @Nullable ScheduledExecutorService wakes;

	private final KafkaOutageMode mode;

	private final Duration probeDelay;

	private final Duration maxPause;

	private final Duration alertAfter;

	/**
	 * Outages with the defaults: {@link KafkaOutageMode#PAUSE}, probes after 1s, pauses up to 10s.
	 * @param clock the clock whose time {@link ListenerOutage#since()} reads
	 * @param alertAfter how long an outage lasts before health indicators report it ({@code backoff.kafka.outage-alert-after})
	 */
	public KafkaOutages(Clock clock, Duration alertAfter) {
		this(clock, KafkaOutageMode.PAUSE, Duration.ofSeconds(1), Duration.ofSeconds(10), alertAfter);
	}

	/**
	 * @param clock the clock whose time {@link ListenerOutage#since()} reads
	 * @param mode what a listener whose policy has a budget does once the budget refuses a retry ({@code backoff.kafka.outage})
	 * @param probeDelay the first pause before a probe ({@code backoff.kafka.outage-probe-delay})
	 * @param maxPause the longest pause between probes ({@code backoff.kafka.outage-max-pause}), at least {@code probeDelay}
	 * @param alertAfter how long an outage lasts before health indicators report it ({@code backoff.kafka.outage-alert-after})
	 */
	public KafkaOutages(Clock clock, KafkaOutageMode mode, Duration probeDelay, Duration maxPause, Duration alertAfter) {
		if (maxPause.compareTo(probeDelay) < 0) {
			throw new IllegalArgumentException("maxPause " + maxPause + " must be at least probeDelay " + probeDelay);
		}
		this.clock = clock;
		this.mode = mode;
		this.probeDelay = probeDelay;
		this.maxPause = maxPause;
		this.alertAfter = alertAfter;
	}

	/** @param listener told of every listener's pauses, resumes, probes and held-back records */
	public void addListener(KafkaOutageListener listener) {
		this.outageListeners.add(listener);
	}

	/** @return every listener wired under a policy, in the order they were wired, with its current state */
	public List<ListenerOutage> listeners() {
		List<ListenerOutage> listeners = new ArrayList<>();
		this.wired.values()
			.stream()
			.sorted(Comparator.comparingLong(Wired::order))
			.forEach((wired) -> listeners.add((wired.outage() != null) ? wired.outage().state()
					: new ListenerOutage(wired.listenerId(), wired.policy(), Set.of(), null)));
		return listeners;
	}

	/** @return what a listener whose policy has a budget does once the budget refuses a retry */
	public KafkaOutageMode getMode() {
		return this.mode;
	}

	/** @return the first pause before a probe */
	public Duration getProbeDelay() {
		return this.probeDelay;
	}

	/** @return the longest pause between probes */
	public Duration getMaxPause() {
		return this.maxPause;
	}

	/**
	 * Notes a listener wired under a policy.
	 * @param outage its outage, or {@code null} when it has none (dead-letter mode, or a policy without a budget)
	 */
	void wired(String listenerId, String policy, @Nullable KafkaListenerOutage outage) {
		this.wired.computeIfAbsent(listenerId, (id) -> new Wired(this.wired.size(), id, policy, outage));
	}

	/** @return a new outage of a listener under this one's settings */
	KafkaListenerOutage outage(String listenerId, String policy, MessageListenerContainer container) {
		return new KafkaListenerOutage(listenerId, policy, container, this, this.probeDelay, this.maxPause,
				NanoClock.SYSTEM, RandomSource.THREAD_LOCAL);
	}

	/** @return how long an outage lasts before health indicators report it ({@code backoff.kafka.outage-alert-after}) */
	public Duration getAlertAfter() {
		return this.alertAfter;
	}

	/** @return the clock whose time {@link ListenerOutage#since()} reads */
	Clock clock() {
		return this.clock;
	}

	private record Wired(long order, String listenerId, String policy, @Nullable KafkaListenerOutage outage) {
	}

	/** Runs the task after the delay, on a daemon thread of its own that only wakes consumers. */
	void schedule(Runnable task, long nanos) {
		ScheduledExecutorService wakes;
		synchronized (this.wired) {
			wakes = this.wakes;
			if (wakes == null) {
				ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (runnable) -> {
					Thread thread = new Thread(runnable, "backoff-kafka-outages");
					thread.setDaemon(true);
					return thread;
				});
				executor.setRemoveOnCancelPolicy(true);
				wakes = executor;
				this.wakes = wakes;
			}
		}
		wakes.schedule(() -> {
			try {
				task.run();
			}
			catch (RuntimeException ex) {
				logger.debug("Could not wake a consumer", ex);
			}
		}, nanos, TimeUnit.NANOSECONDS);
	}

	/** Stops the thread that wakes consumers. */
	@Override
	public void close() {
		synchronized (this.wired) {
			if (this.wakes != null) {
				this.wakes.shutdownNow();
				this.wakes = null;
			}
		}
	}

	/** Calls each listener; what one throws is logged, never passed on: it must not change a record's fate. */
	void tell(java.util.function.Consumer<KafkaOutageListener> call) {
		for (KafkaOutageListener listener : this.outageListeners) {
			try {
				call.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("A KafkaOutageListener failed (" + listener + "); the record's fate is unchanged", ex);
			}
		}
	}

}
