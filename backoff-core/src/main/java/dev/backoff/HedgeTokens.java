package dev.backoff;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

/**
 * Hedges paid when sent: each call adds {@code maxExtraLoad} of a token, each hedge takes a
 * whole one, up to a burst of {@value #BURST} tokens. So the hedges of every call that shares
 * the bucket are at most {@code maxExtraLoad} of those calls, plus the burst, whatever the
 * dependency's latency does: when it slows down for everyone, the hedge delay falls below most
 * answers and every call would send a copy, the load a struggling dependency can least afford.
 * An empty bucket holds the hedge back: the call waits for the copies it has, as without
 * hedging. Thread-safe.
 *
 * <p>The shape is the one the big clients converged on: Finagle's
 * {@code BackupRequestFilter(maxExtraLoad)} deposits a share of a token per request and
 * withdraws one per backup request; AWS's S3 transfer manager fills a bucket of 10 by 0.05 per
 * success and takes 1 per hedge (about 4.8 % extra, "The Tail at Scale"'s 5 %). Here the
 * refill is per call rather than per success, so that a slow dependency (whose calls still
 * succeed) and a failing one are capped alike; a hedge's failure still costs the
 * {@link RetryBudget} its token, as a retried failure does.
 *
 * <p>Runtime state, like a {@link RetryBudget}: kept beside a policy (one per named policy),
 * never inside it. The bucket starts full, so the first calls may hedge at once. Tokens are
 * kept in thousandths, as the budget's are; one compare-and-set per change, and a call that
 * finds the bucket full only reads it.
 */
public final class HedgeTokens {

	/** Default {@code maxExtraLoad}: "The Tail at Scale"'s 5 % more requests. */
	public static final double DEFAULT_MAX_EXTRA_LOAD = 0.05;

	/**
	 * The largest {@code maxExtraLoad}: every call's {@value Hedging#MAX_HEDGES_LIMIT} hedges,
	 * the most a policy may send (no cap then).
	 */
	public static final double MAX_EXTRA_LOAD_LIMIT = Hedging.MAX_HEDGES_LIMIT;

	/**
	 * The bucket's size, in hedges: as many may go at once after a quiet spell (the S3 transfer
	 * manager's capacity), a small share of the calls of any busy minute.
	 */
	public static final int BURST = 10;

	private static final long UNIT = 1000;

	private static final long MAX_MILLI_TOKENS = BURST * UNIT;

	private static final VarHandle MILLI_TOKENS;

	static {
		try {
			MILLI_TOKENS = MethodHandles.lookup().findVarHandle(HedgeTokens.class, "milliTokens", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final long ratioMilliTokens;

	private final LongAdder heldBack = new LongAdder();

	@SuppressWarnings("unused") // through MILLI_TOKENS
	private volatile long milliTokens = MAX_MILLI_TOKENS;

	/**
	 * A new, full bucket of {@value #BURST} tokens.
	 * @param maxExtraLoad the share of a token each call adds: the most hedges per call, over
	 * time; at least 0.001 (kept to three decimals) and at most {@value #MAX_EXTRA_LOAD_LIMIT}
	 * @throws InvalidPolicyException naming the setting ({@code hedgeMaxExtraLoad}), the value and the rule
	 */
	public HedgeTokens(double maxExtraLoad) {
		if (!(maxExtraLoad >= 0.001 && maxExtraLoad <= MAX_EXTRA_LOAD_LIMIT)) {
			throw new InvalidPolicyException("hedgeMaxExtraLoad", maxExtraLoad,
					"must be at least 0.001 (tokens are kept to three decimals) and at most {0} (every call's most hedges)",
					(int) MAX_EXTRA_LOAD_LIMIT);
		}
		this.ratioMilliTokens = Math.round(maxExtraLoad * UNIT);
	}

	/**
	 * A new bucket with another {@code maxExtraLoad} that holds the tokens this one holds now
	 * (the burst is the same), for a live change: a cap that was holding hedges back still
	 * does. This bucket is left as it is, for the calls that still hold it.
	 * @param maxExtraLoad as for {@link #HedgeTokens(double)}
	 * @return the new bucket
	 * @throws InvalidPolicyException naming the setting, the value and the rule
	 */
	public HedgeTokens resize(double maxExtraLoad) {
		HedgeTokens resized = new HedgeTokens(maxExtraLoad);
		resized.milliTokens = this.milliTokens;
		return resized;
	}

	/**
	 * Fills the bucket up, as it was new: for tests that each start from the configured bucket,
	 * whatever an earlier test spent.
	 */
	public void refill() {
		this.milliTokens = MAX_MILLI_TOKENS;
	}

	/** A call started (its first copy): adds {@code maxExtraLoad} of a token, up to the burst. */
	public void onCall() {
		long current;
		long next;
		do {
			current = this.milliTokens;
			if (current >= MAX_MILLI_TOKENS) {
				return;
			}
			next = Math.min(MAX_MILLI_TOKENS, current + this.ratioMilliTokens);
		}
		while (!MILLI_TOKENS.weakCompareAndSet(this, current, next));
	}

	/**
	 * A hedge is about to be sent: takes a whole token. Ask last, once nothing else stops the
	 * hedge, so that no token is taken for a hedge that is not sent.
	 * @return whether the hedge may go; {@code false}: the cap holds it back (counted in {@link #heldBack()})
	 */
	public boolean tryHedge() {
		long current;
		do {
			current = this.milliTokens;
			if (current < UNIT) {
				this.heldBack.increment();
				return false;
			}
		}
		while (!MILLI_TOKENS.weakCompareAndSet(this, current, current - UNIT));
		return true;
	}

	/** @return the hedges this bucket has held back so far */
	public long heldBack() {
		return this.heldBack.sum();
	}

	/** @return the share of a token each call adds */
	public double getMaxExtraLoad() {
		return (double) this.ratioMilliTokens / UNIT;
	}

	/** @return the tokens left now: the hedges that may go at once */
	public double getTokens() {
		return (double) this.milliTokens / UNIT;
	}

	@Override
	public String toString() {
		return "HedgeTokens[maxExtraLoad=" + getMaxExtraLoad() + ", tokens=" + getTokens() + ", heldBack=" + heldBack()
				+ "]";
	}

}
