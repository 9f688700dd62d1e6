package dev.backoff.spring.config;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A policy's admission: client-side throttling as in Google's SRE book, which rejects an attempt
 * locally, unsent, with probability max(0, (requests - ratio x accepts) / (requests + 1)) over
 * the window, capped at max-rejection; {@code null} means "inherit". On only when 'enabled' is
 * true: the other settings tune it. Each named policy gets its own, even when its settings come
 * from backoff.defaults.
 */
public class AdmissionSettings {

	/** Whether the policy rejects attempts locally while the dependency accepts too few. */
	private @Nullable Boolean enabled;

	/** The SRE book's K: throttling starts once fewer than 1/K of the attempts are accepted. */
	private @Nullable Double ratio;

	/** How far back attempts and accepts are counted. */
	private @Nullable Duration window;

	/** The largest share of attempts rejected locally, below 1. */
	private @Nullable Double maxRejection;

	/** Whether a call's first attempt may be rejected; false rejects retries only. */
	private @Nullable Boolean firstAttempts;

	public @Nullable Boolean getEnabled() {
		return this.enabled;
	}

	public void setEnabled(@Nullable Boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable Double getRatio() {
		return this.ratio;
	}

	public void setRatio(@Nullable Double ratio) {
		this.ratio = ratio;
	}

	public @Nullable Duration getWindow() {
		return this.window;
	}

	public void setWindow(@Nullable Duration window) {
		this.window = window;
	}

	public @Nullable Double getMaxRejection() {
		return this.maxRejection;
	}

	public void setMaxRejection(@Nullable Double maxRejection) {
		this.maxRejection = maxRejection;
	}

	public @Nullable Boolean getFirstAttempts() {
		return this.firstAttempts;
	}

	public void setFirstAttempts(@Nullable Boolean firstAttempts) {
		this.firstAttempts = firstAttempts;
	}

}
