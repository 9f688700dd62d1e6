package dev.backoff.autoconfigure.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.WeakHashMap;

import dev.backoff.BackoffDelays;
import dev.backoff.BackoffSchedule;
import org.jspecify.annotations.Nullable;

import static dev.backoff.autoconfigure.actuate.BackoffEndpoint.rounded;

/**
 * The sampled retries behind the {@code backoff} endpoint's previews: each schedule's waits
 * drawn from {@value #SAMPLES} independent sequences, as the executor draws a call's, with a
 * fixed seed so that a preview reads the same on every request.
 */
final class SchedulePreviews {

	/** Sampled sequences behind each preview's expected delays and percentiles. */
	static final int SAMPLES = 10_000;

	/** Retries shown in a preview at most; past them the delays repeat the cap. */
	static final int MAX_PREVIEW_RETRIES = 50;

	private static final long SEED = 0x5DEECE66DL;

	/** Each schedule's sampled retries; a schedule that is no longer used is dropped. */
	private final Map<BackoffSchedule, List<BackoffEndpoint.RetryPreview>> previews = Collections
		.synchronizedMap(new WeakHashMap<>());

	/** A schedule's sampled retries, its worst case never past max-elapsed. */
	List<BackoffEndpoint.RetryPreview> retries(BackoffSchedule schedule, @Nullable Duration maxElapsed) {
		List<BackoffEndpoint.RetryPreview> retries = this.previews.computeIfAbsent(schedule, SchedulePreviews::sample);
		if (maxElapsed == null) {
			return retries;
		}
		// No call waits past max-elapsed: a worst case beyond it cannot happen.
		return retries.stream()
			.map((retry) -> (schedule.worstCaseTotalDelay(retry.retry()).compareTo(maxElapsed) <= 0) ? retry
					: retry.withWorstCaseElapsed(rounded(maxElapsed)))
			.toList();
	}

	/** Samples a schedule's retries: tens of milliseconds of CPU, so done once per schedule. */
	private static List<BackoffEndpoint.RetryPreview> sample(BackoffSchedule schedule) {
		int rows = Math.min(schedule.getMaxRetries(), MAX_PREVIEW_RETRIES);
		long[][] samples = new long[rows][SAMPLES];
		SplittableRandom random = new SplittableRandom(SEED);
		for (int sample = 0; sample < SAMPLES; sample++) {
			// Each sequence is independent, as each call's is: the same engine the executor uses.
			BackoffDelays delays = schedule.delays(random.split());
			for (int row = 0; row < rows; row++) {
				samples[row][sample] = delays.nextNanos();
			}
		}
		List<BackoffEndpoint.RetryPreview> retries = new ArrayList<>(rows);
		double expectedElapsed = 0;
		for (int row = 0; row < rows; row++) {
			long[] draws = samples[row];
			double mean = Arrays.stream(draws).average().orElse(0);
			Arrays.sort(draws);
			expectedElapsed += mean;
			retries.add(new BackoffEndpoint.RetryPreview(row + 1, rounded(schedule.longestDelay(row + 1)), rounded(nanos(mean)),
					rounded(Duration.ofNanos(draws[SAMPLES / 2])), rounded(Duration.ofNanos(draws[(int) (SAMPLES * 0.99)])),
					rounded(nanos(expectedElapsed)), rounded(schedule.worstCaseTotalDelay(row + 1))));
		}
		return List.copyOf(retries);
	}

	private static Duration nanos(double nanos) {
		return Duration.ofNanos(Math.round(nanos));
	}

}
