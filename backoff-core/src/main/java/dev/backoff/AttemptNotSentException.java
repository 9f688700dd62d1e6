package dev.backoff;

/**
 * An attempt that the policy's {@link OverloadControls} did not send: the call ended before it,
 * with nothing sent for it. A first attempt {@link AdmissionRejectedException rejected by
 * admission} fails the call with that subtype ({@link Outcome#ADMISSION_REJECTED}); a first attempt
 * whose slot at the {@link Pacing pace} is further away than the policy's {@code maxElapsed} allows
 * fails it with this type ({@link Outcome#TIMED_OUT}): waiting that long would only end the
 * call unsent anyway, and the slot goes to a call that can use it.
 */
public class AttemptNotSentException extends RuntimeException {

	/** @param message what was not sent, and why */
	public AttemptNotSentException(String message) {
		super(message);
	}

}
