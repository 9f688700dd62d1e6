package dev.backoff.spring.config;

import java.time.Duration;

import dev.backoff.Admission;
import dev.backoff.OverloadControls;
import org.jspecify.annotations.Nullable;

/**
 * The settings of a policy's overload controls beside its budget, admission and pacing, with
 * their rows of the table: {@link PolicySettings} extends it, so that they bind, merge and list
 * as its own (kept here, the policy's settings being many already).
 */
public class OverloadSettings extends HedgingSettings {

	private final AdmissionSettings admission = new AdmissionSettings();

	private final PacingSettings pacing = new PacingSettings();

	public AdmissionSettings getAdmission() {
		return this.admission;
	}

	public PacingSettings getPacing() {
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

	private static @Nullable Admission admission(EffectivePolicy policy) {
		OverloadControls controls = policy.controls();
		return (controls != null) ? controls.getAdmission() : null;
	}

}
