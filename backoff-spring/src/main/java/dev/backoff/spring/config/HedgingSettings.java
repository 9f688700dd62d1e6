package dev.backoff.spring.config;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The hedging settings of one policy, as {@code application.yml} gives them ({@code hedge-delay},
 * {@code max-hedges}, …), kept apart so that {@link PolicySettings}, which extends it, stays
 * readable; {@code null} means "inherit". Their rows are in {@link PolicySettings}'s table.
 */
public class HedgingSettings {

	/** How long a non-blocking call waits for an answer before it sends another copy. */
	private @Nullable Duration hedgeDelay;

	/** Extra copies a non-blocking call may send, 0 to 4. */
	private @Nullable Integer maxHedges;

	/** The percentile of the method's recent answer times that is the hedge delay, 50 to below 100. */
	private @Nullable Double hedgePercentile;

	/** Most hedges per call, over time: each call adds this share of a token, each hedge takes one. */
	private @Nullable Double hedgeMaxExtraLoad;

	public @Nullable Duration getHedgeDelay() {
		return this.hedgeDelay;
	}

	public void setHedgeDelay(@Nullable Duration value) {
		this.hedgeDelay = value;
	}

	public @Nullable Integer getMaxHedges() {
		return this.maxHedges;
	}

	public void setMaxHedges(@Nullable Integer value) {
		this.maxHedges = value;
	}

	public @Nullable Double getHedgePercentile() {
		return this.hedgePercentile;
	}

	public void setHedgePercentile(@Nullable Double value) {
		this.hedgePercentile = value;
	}

	public @Nullable Double getHedgeMaxExtraLoad() {
		return this.hedgeMaxExtraLoad;
	}

	public void setHedgeMaxExtraLoad(@Nullable Double value) {
		this.hedgeMaxExtraLoad = value;
	}

}
