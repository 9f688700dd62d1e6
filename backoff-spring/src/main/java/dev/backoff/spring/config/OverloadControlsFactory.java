package dev.backoff.spring.config;

import java.time.Duration;

import dev.backoff.Admission;
import dev.backoff.NanoClock;
import dev.backoff.OverloadControls;
import dev.backoff.Pacing;
import dev.backoff.RandomSource;
import org.jspecify.annotations.Nullable;

/**
 * Makes a policy's {@link OverloadControls} from its merged settings, and keeps their state
 * across a change that leaves their own settings as they were, as {@link PolicyFactory} keeps a
 * budget's tokens.
 */
final class OverloadControlsFactory {

	private OverloadControlsFactory() {
	}

	/**
	 * @param merged a policy's merged settings
	 * @param clock the time admission and pacing count in
	 * @param randomSource what admission's decisions draw from
	 * @return new controls, or {@code null} when neither admission nor pacing is enabled
	 * @throws dev.backoff.InvalidPolicyException naming the setting, the value and the rule
	 */
	static @Nullable OverloadControls create(OverloadSettings merged, NanoClock clock, RandomSource randomSource) {
		OverloadSettings.Admission settings = merged.getAdmission();
		Admission admission = null;
		if (Boolean.TRUE.equals(settings.getEnabled())) {
			Double ratio = settings.getRatio();
			Duration window = settings.getWindow();
			Double maxRejection = settings.getMaxRejection();
			admission = new Admission((ratio != null) ? ratio : Admission.DEFAULT_RATIO,
					(window != null) ? window : Admission.DEFAULT_WINDOW,
					(maxRejection != null) ? maxRejection : Admission.DEFAULT_MAX_REJECTION, clock, randomSource);
		}
		Pacing pacing = Boolean.TRUE.equals(merged.getPacing().getEnabled()) ? new Pacing(clock) : null;
		if (admission == null && pacing == null) {
			return null;
		}
		return new OverloadControls(admission, !Boolean.FALSE.equals(settings.getFirstAttempts()), pacing);
	}

	/**
	 * Admission keeps what it has counted when its own settings stay, and pacing its rate while it
	 * stays on: a change of another setting (max-attempts, say) must not forget that the
	 * dependency is overloaded.
	 */
	static @Nullable OverloadControls carry(@Nullable OverloadControls old, @Nullable OverloadControls fresh) {
		if (old == null || fresh == null) {
			return fresh;
		}
		Admission admission = fresh.getAdmission();
		Admission kept = old.getAdmission();
		if (admission != null && kept != null && kept.getRatio() == admission.getRatio()
				&& kept.getWindow().equals(admission.getWindow())
				&& kept.getMaxRejection() == admission.getMaxRejection()) {
			admission = kept;
		}
		Pacing pacing = (fresh.getPacing() != null && old.getPacing() != null) ? old.getPacing() : fresh.getPacing();
		if (admission == old.getAdmission() && pacing == old.getPacing()
				&& fresh.isFirstAttempts() == old.isFirstAttempts()) {
			return old;
		}
		return new OverloadControls(admission, fresh.isFirstAttempts(), pacing);
	}

}
