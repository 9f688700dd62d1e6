package dev.backoff.spring.events;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.backoff.BackoffListener;
import dev.backoff.HedgeEvent;
import dev.backoff.Outcome;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.BackoffPolicies.SettingChange;
import dev.backoff.spring.config.PolicySnapshot;
import dev.backoff.spring.events.BackoffEvent.Kind;
import dev.backoff.spring.operation.BackoffListenerFactory;
import dev.backoff.spring.operation.BackoffOperation;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the last {@code buffer-size} events of each policy (its methods' together), for the
 * {@code backoff} endpoint: each retry scheduled, each call that ended without success or
 * after retries, each budget refusal, each hedge sent and won, each live change of the policy.
 *
 * <p>Fed by the listener of each method, which hears nothing of a call that succeeded without
 * a retry ({@link BackoffListener#hearsSuccessAtOnce()}): such a call records nothing,
 * allocates nothing and costs what it cost without events. An event is recorded on the thread
 * of the failure it reports, into a lock-free ring ({@link EventRing}).
 *
 * <p>An exception's message may hold what should not leave the process: it is cut to
 * {@value #MESSAGE_LIMIT} characters, and left out altogether when messages are not included.
 */
public class BackoffEvents implements BackoffListenerFactory {

	/** The characters of an exception's message kept; a longer one ends with {@code …}. */
	public static final int MESSAGE_LIMIT = 200;

	private final Clock clock;

	private final int bufferSize;

	private final boolean includeMessages;

	private final Map<String, EventRing> rings = new ConcurrentHashMap<>();

	/**
	 * @param clock the clock of the events' times
	 * @param bufferSize the events kept per policy, 0 for none
	 * @param includeMessages whether an event keeps its exception's message (cut)
	 */
	public BackoffEvents(Clock clock, int bufferSize, boolean includeMessages) {
		if (bufferSize < 0) {
			throw new IllegalArgumentException("bufferSize must be 0 or more, was " + bufferSize);
		}
		this.clock = clock;
		this.bufferSize = bufferSize;
		this.includeMessages = includeMessages;
	}

	/**
	 * Records the live changes of these policies from now on.
	 * @param policies the policies whose changes to record
	 */
	public void watch(BackoffPolicies policies) {
		if (this.bufferSize == 0) {
			return;
		}
		PolicySnapshot[] last = { policies.snapshot() };
		policies.addChangeListener(() -> {
			PolicySnapshot next = policies.snapshot();
			PolicySnapshot previous;
			synchronized (last) {
				previous = last[0];
				last[0] = next;
			}
			for (Map.Entry<String, Map<String, SettingChange>> changed : previous.differences(next).entrySet()) {
				record(changed.getKey(), new BackoffEvent(now(), Kind.POLICY_CHANGED, null, 0, null, false, null, null,
						null, changed.getValue()));
			}
		});
	}

	@Override
	public BackoffListener create(BackoffOperation operation) {
		return (this.bufferSize == 0) ? BackoffListener.NONE
				: new RecordingListener(this, ring(operation.getPolicyName()), operation);
	}

	/**
	 * @param policy a policy name
	 * @return its events, newest first; none when it has had none or events are off
	 */
	public List<BackoffEvent> get(String policy) {
		EventRing ring = this.rings.get(policy);
		return (ring != null) ? ring.newestFirst() : List.of();
	}

	/** @return the events kept per policy, 0 when events are off */
	public int getBufferSize() {
		return this.bufferSize;
	}

	/** @return whether events keep their exception's message, cut to {@value #MESSAGE_LIMIT} characters */
	public boolean isIncludeMessages() {
		return this.includeMessages;
	}

	void record(String policy, BackoffEvent event) {
		ring(policy).add(event);
	}

	EventRing ring(String policy) {
		return this.rings.computeIfAbsent(policy, (name) -> new EventRing(this.bufferSize));
	}

	Instant now() {
		return this.clock.instant();
	}

	/**
	 * @param failure a failure, or {@code null}
	 * @return its message as an event keeps it: cut, or {@code null} when left out or absent
	 */
	@Nullable String message(@Nullable Throwable failure) {
		if (!this.includeMessages || failure == null) {
			return null;
		}
		String message;
		try {
			message = failure.getMessage();
		}
		catch (RuntimeException ex) {
			// An exception's own getMessage that fails must not change the call.
			return null;
		}
		return (message != null) ? cut(message) : null;
	}

	static String cut(String message) {
		if (message.length() <= MESSAGE_LIMIT) {
			return message;
		}
		// Never half of a surrogate pair.
		int end = Character.isHighSurrogate(message.charAt(MESSAGE_LIMIT - 1)) ? MESSAGE_LIMIT - 1 : MESSAGE_LIMIT;
		return message.substring(0, end) + "…";
	}

	/** One method's events, into its policy's ring. */
	private static final class RecordingListener implements BackoffListener {

		private final BackoffEvents events;

		private final EventRing ring;

		private final BackoffOperation operation;

		/** The hint of the retry this thread is about to schedule, from {@link #onRetryAfter}. */
		private final ThreadLocal<@Nullable Duration> retryAfter = new ThreadLocal<>();

		RecordingListener(BackoffEvents events, EventRing ring, BackoffOperation operation) {
			this.events = events;
			this.ring = ring;
			this.operation = operation;
		}

		@Override
		public void onRetryAfter(int attempt, Duration hint) {
			// The executor calls onRetryScheduled next, on this thread, with the same wait.
			this.retryAfter.set(hint);
		}

		@Override
		public void onRetryScheduled(int attempt, Duration delay, @Nullable Throwable failure) {
			Duration hint = this.retryAfter.get();
			if (hint != null) {
				this.retryAfter.remove();
			}
			this.ring.add(new BackoffEvent(this.events.now(), Kind.RETRY_SCHEDULED, this.operation.getMethodTag(),
					attempt, delay, delay.equals(hint), null, type(failure), this.events.message(failure), Map.of()));
		}

		@Override
		public boolean hearsSuccessAtOnce() {
			return false;
		}

		@Override
		public void onSuccess(Outcome outcome, int attempts) {
			// Alone, not in a composite, it hears every success: a first attempt's is not an event.
			if (outcome == Outcome.SUCCESS_AFTER_RETRY) {
				this.ring.add(new BackoffEvent(this.events.now(), Kind.CALL_ENDED, this.operation.getMethodTag(),
						attempts, null, false, outcome, null, null, Map.of()));
			}
		}

		@Override
		public void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
			Kind kind = (outcome == Outcome.BUDGET_EXHAUSTED) ? Kind.BUDGET_REFUSED : Kind.CALL_ENDED;
			this.ring.add(new BackoffEvent(this.events.now(), kind, this.operation.getMethodTag(), attempts, null,
					false, outcome, type(failure), this.events.message(failure), Map.of()));
		}

		@Override
		public void onHedge(HedgeEvent event, int attempt) {
			Kind kind = switch (event) {
				case SENT -> Kind.HEDGE_SENT;
				case WON -> Kind.HEDGE_WON;
				default -> null;
			};
			if (kind != null) {
				this.ring.add(new BackoffEvent(this.events.now(), kind, this.operation.getMethodTag(), attempt, null,
						false, null, null, null, Map.of()));
			}
		}

		private static String type(@Nullable Throwable failure) {
			return (failure != null) ? failure.getClass().getName() : BackoffOperation.NO_EXCEPTION;
		}

	}

}
