package dev.backoff.spring.events;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;

import dev.backoff.Outcome;
import dev.backoff.spring.config.BackoffPolicies.SettingChange;
import org.jspecify.annotations.Nullable;

/**
 * One recent event of a policy. Which fields are set depends on its {@link Kind}; the others
 * are {@code null} (or 0, {@code false}, empty).
 *
 * @param time when it was recorded, by the injected clock
 * @param kind what happened
 * @param method the method ({@code SimpleClassName.methodName}, or an HTTP client's
 * {@code policy GET}), {@code null} for a live change
 * @param attempt for a retry, the attempt that failed; for a hedge, the copy's attempt; for a
 * call's end or a budget refusal, the attempts made
 * @param delay for a retry, the wait before the next attempt
 * @param retryAfter for a retry, whether the server's {@code Retry-After} set the delay
 * @param outcome for a call's end or a budget refusal, how the call ended
 * @param failure the failure's class name, {@code none} when a result asked for the retry, or
 * {@code null}
 * @param message the failure's message, cut to {@value BackoffEvents#MESSAGE_LIMIT}
 * characters; {@code null} when it has none or messages are left out
 * @param changes for a live change, the settings that took another value
 */
public record BackoffEvent(Instant time, Kind kind, @Nullable String method, int attempt, @Nullable Duration delay,
		boolean retryAfter, @Nullable Outcome outcome, @Nullable String failure, @Nullable String message,
		Map<String, SettingChange> changes) {

	/** What an event records; its {@link #value()} is how the endpoint names it. */
	public enum Kind {

		/** An attempt failed and the next was scheduled. */
		RETRY_SCHEDULED,

		/** A call ended without success, or succeeded after retries. */
		CALL_ENDED,

		/** The retry budget refused a retry: the call ended {@code budget_exhausted}. */
		BUDGET_REFUSED,

		/** A copy of a hedged call was sent. */
		HEDGE_SENT,

		/** A copy of a hedged call answered first. */
		HEDGE_WON,

		/** The policy was changed while the application runs (endpoint, refresh, reset). */
		POLICY_CHANGED;

		private final String value = name().toLowerCase(Locale.ROOT).replace('_', '-');

		/** @return its name in the endpoint, such as {@code retry-scheduled} */
		public String value() {
			return this.value;
		}

		/**
		 * @param value a name such as {@code retry-scheduled}
		 * @return the kind, or {@code null} for none of that name
		 */
		public static @Nullable Kind of(String value) {
			for (Kind kind : values()) {
				if (kind.value.equals(value)) {
					return kind;
				}
			}
			return null;
		}

	}

}
