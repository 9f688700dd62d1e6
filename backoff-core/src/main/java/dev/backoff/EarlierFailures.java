package dev.backoff;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * The failures of a call's earlier attempts, attached as suppressed to the one the caller gets:
 * the first {@value BackoffCall#MAX_SUPPRESSED}, each once. Made by a {@link BackoffCall} on its first
 * failure worth remembering (a result-only retry needs none); one attempt at a time, as its call.
 */
final class EarlierFailures {

	/** Small at first: most calls that retry fail once or twice, then succeed. */
	private Throwable[] failures = new Throwable[2];

	private int count;

	/** @return the call's earlier failures with this one, made now if it has none */
	static EarlierFailures remember(@Nullable EarlierFailures earlier, Throwable failure) {
		EarlierFailures failures = (earlier != null) ? earlier : new EarlierFailures();
		failures.remember(failure);
		return failures;
	}

	private void remember(Throwable failure) {
		// Keeps the first ones: they usually say how the trouble began.
		int count = this.count;
		if (count >= BackoffCall.MAX_SUPPRESSED) {
			return;
		}
		Throwable[] failures = this.failures;
		for (int i = 0; i < count; i++) {
			if (failures[i] == failure) {
				return;
			}
		}
		if (count == failures.length) {
			failures = Arrays.copyOf(failures, BackoffCall.MAX_SUPPRESSED);
			this.failures = failures;
		}
		failures[count] = failure;
		this.count = count + 1;
	}

	/** Attaches them to the failure the caller gets, but that one itself. */
	void attachTo(Throwable failure) {
		// Bounded even when the caller throws one shared instance on every call.
		int room = BackoffCall.MAX_SUPPRESSED - failure.getSuppressed().length;
		for (int i = 0; i < this.count && room > 0; i++) {
			if (this.failures[i] != failure) {
				failure.addSuppressed(this.failures[i]);
				room--;
			}
		}
	}

}
