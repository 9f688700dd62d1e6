package dev.backoff.autoconfigure.actuate;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.backoff.Admission;
import dev.backoff.OverloadControls;
import dev.backoff.Pacing;
import dev.backoff.spring.config.DurationFormat;
import org.jspecify.annotations.Nullable;

/**
 * A policy's overload controls in the endpoint, beside its budget, each left out while off as
 * the budget is: {@code admission} with its settings and the probability that an attempt is
 * rejected locally now, and {@code pacing}, whether a throttling failure has woken it and then
 * the attempts per second it allows now ({@code rate}).
 */
final class OverloadDescriptors {

	private OverloadDescriptors() {
	}

	/** @return the controls' descriptors by key, none for a policy without controls */
	static Map<String, Object> of(@Nullable OverloadControls controls) {
		Map<String, Object> descriptors = new LinkedHashMap<>();
		if (controls == null) {
			return descriptors;
		}
		Admission admission = controls.getAdmission();
		if (admission != null) {
			// Maps rather than records: serialized without reflection, in a native image too.
			Map<String, Object> described = new LinkedHashMap<>();
			described.put("ratio", admission.getRatio());
			described.put("window", DurationFormat.format(admission.getWindow()));
			described.put("maxRejection", admission.getMaxRejection());
			described.put("firstAttempts", controls.isFirstAttempts());
			described.put("rejectionProbability", admission.rejectionProbability());
			descriptors.put("admission", described);
		}
		Pacing pacing = controls.getPacing();
		if (pacing != null) {
			Map<String, Object> described = new LinkedHashMap<>();
			described.put("active", pacing.isActive());
			if (pacing.isActive()) {
				described.put("rate", pacing.rate());
			}
			descriptors.put("pacing", described);
		}
		return descriptors;
	}

}
