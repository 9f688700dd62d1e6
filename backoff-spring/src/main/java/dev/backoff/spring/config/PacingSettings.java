package dev.backoff.spring.config;

import org.jspecify.annotations.Nullable;

/**
 * A policy's pacing on throttling: dormant until the policy's first throttling failure, then
 * every attempt of the policy waits for its slot at a rate that follows what the dependency
 * allows; {@code null} means "inherit". Each named policy gets its own.
 */
public class PacingSettings {

	/** Whether the policy's attempts are paced once the dependency has throttled. */
	private @Nullable Boolean enabled;

	public @Nullable Boolean getEnabled() {
		return this.enabled;
	}

	public void setEnabled(@Nullable Boolean enabled) {
		this.enabled = enabled;
	}

}
