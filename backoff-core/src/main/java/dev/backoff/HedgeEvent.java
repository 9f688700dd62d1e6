package dev.backoff;

/**
 * What happened to a copy of a {@link Hedging hedged} call; its {@link #tagValue()} is the
 * {@code event} tag of the {@code backoff.hedges} meter.
 */
public enum HedgeEvent {

	/** A hedge was sent: a copy started while another was still running. */
	SENT,

	/** The call succeeded with a hedge's answer. */
	WON,

	/** A copy still running when the call ended was cancelled. */
	CANCELLED,

	/**
	 * A copy failed (or its result asked for a retry) while another was still running: the call
	 * went on.
	 */
	FAILED,

	/**
	 * A hedge was due but not sent: the policy's {@link HedgeTokens} were spent, so the call
	 * waits for the copies it has. Its attempt number is the one the hedge would have had.
	 */
	HELD_BACK;

	/** @return the lower-case name used as a metric tag */
	public String tagValue() {
		return name().toLowerCase(java.util.Locale.ROOT);
	}

}
