package dev.backoff.spring.config;

import java.time.Duration;

import dev.backoff.OverloadControls;
import org.jspecify.annotations.Nullable;

/**
 * The settings of a policy's overload controls beside its budget, admission and pacing, with
 * their rows of the table: {@link PolicySettings} extends it, so that they bind, merge and list
 * as its own (kept here, the policy's settings being many already).
 */
public class OverloadSettings extends HedgingSettings {

	private final Admission admission = new Admission();

	private final Pacing pacing = new Pacing();

	public Admission getAdmission() {
		return this.admission;
	}

	public Pacing getPacing() {
		return this.pacing;
	}

	static final PolicySetting<Boolean> ADMISSION_ENABLED = PolicySetting.of("admission.enabled", Boolean.class,
			"true", (s) -> s.getAdmission().getEnabled(), (s, value) -> s.getAdmission().setEnabled(value), null,
			(p) -> admission(p) != null);

	static final PolicySetting<Double> ADMISSION_RATIO = PolicySetting.of("admission.ratio", Double.class, "2.0",
			(s) -> s.getAdmission().getRatio(), (s, value) -> s.getAdmission().setRatio(value), null,
			(p) -> (admission(p) != null) ? admission(p).getRatio() : null);

	static final PolicySetting<Duration> ADMISSION_WINDOW = PolicySetting.of("admission.window", Duration.class, "2m",
			(s) -> s.getAdmission().getWindow(), (s, value) -> s.getAdmission().setWindow(value), null,
			(p) -> (admission(p) != null) ? admission(p).getWindow() : null);

	static final PolicySetting<Double> ADMISSION_MAX_REJECTION = PolicySetting.of("admission.maxRejection",
			Double.class, "0.9", (s) -> s.getAdmission().getMaxRejection(),
			(s, value) -> s.getAdmission().setMaxRejection(value), null,
			(p) -> (admission(p) != null) ? admission(p).getMaxRejection() : null);

	static final PolicySetting<Boolean> ADMISSION_FIRST_ATTEMPTS = PolicySetting.of("admission.firstAttempts",
			Boolean.class, "false", (s) -> s.getAdmission().getFirstAttempts(),
			(s, value) -> s.getAdmission().setFirstAttempts(value), null,
			(p) -> (admission(p) != null) ? p.controls().isFirstAttempts() : null);

	static final PolicySetting<Boolean> PACING_ENABLED = PolicySetting.of("pacing.enabled", Boolean.class, "true",
			(s) -> s.getPacing().getEnabled(), (s, value) -> s.getPacing().setEnabled(value), null,
			(p) -> p.controls() != null && p.controls().getPacing() != null);

	private static dev.backoff.@Nullable Admission admission(EffectivePolicy policy) {
		OverloadControls controls = policy.controls();
		return (controls != null) ? controls.getAdmission() : null;
	}

	/**
	 * A policy's admission: client-side throttling as in Google's SRE book, which rejects an attempt
	 * locally, unsent, with probability max(0, (requests - ratio x accepts) / (requests + 1)) over
	 * the window, capped at max-rejection; {@code null} means "inherit". On only when 'enabled' is
	 * true: the other settings tune it. Each named policy gets its own, even when its settings come
	 * from backoff.defaults.
	 */
	public static class Admission {

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

	/**
	 * A policy's pacing on throttling: dormant until the policy's first throttling failure, then
	 * every attempt of the policy waits for its slot at a rate that follows what the dependency
	 * allows; {@code null} means "inherit". Each named policy gets its own.
	 */
	public static class Pacing {

		/** Whether the policy's attempts are paced once the dependency has throttled. */
		private @Nullable Boolean enabled;

		public @Nullable Boolean getEnabled() {
			return this.enabled;
		}

		public void setEnabled(@Nullable Boolean enabled) {
			this.enabled = enabled;
		}

	}

}
