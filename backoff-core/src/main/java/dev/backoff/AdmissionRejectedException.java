package dev.backoff;

import java.util.Locale;

import dev.backoff.internal.Durations;

/**
 * An attempt that the policy's {@link Admission} (client-side throttling) rejected locally: it
 * was never sent. A call whose first attempt is rejected fails with this exception (outcome
 * {@link Outcome#ADMISSION_REJECTED}); a call whose retry is rejected fails with its last
 * attempt's own failure, which carries this one as suppressed.
 *
 * <p>Not retryable by an enclosing call's default classification (it is no I/O failure), which is
 * the point: the dependency is overloaded, and the rejection is there to spare it.
 */
public class AdmissionRejectedException extends AttemptNotSentException {

	private final int attempt;

	private final double probability;

	/**
	 * @param attempt the number the attempt would have had, 1 for a call's first
	 * @param admission the admission that rejected it, for the message
	 * @param probability the rejection probability it was rejected with
	 */
	public AdmissionRejectedException(int attempt, Admission admission, double probability) {
		super(String.format(Locale.ROOT, "Attempt %d was not sent: admission (client-side throttling) rejected it "
				+ "locally, with probability %.2f, because fewer than 1/%s of the policy's attempts in the last %s "
				+ "were accepted by the dependency (admission.ratio %s, admission.max-rejection %s)", attempt,
				probability, format(admission.getRatio()), Durations.format(admission.getWindow()),
				format(admission.getRatio()), format(admission.getMaxRejection())));
		this.attempt = attempt;
		this.probability = probability;
	}

	/** @return the number the attempt would have had, 1 for a call's first */
	public int getAttempt() {
		return this.attempt;
	}

	/** @return the rejection probability the attempt was rejected with */
	public double getProbability() {
		return this.probability;
	}

	private static String format(double value) {
		return (value == Math.rint(value)) ? String.valueOf((long) value) : String.valueOf(value);
	}

}
