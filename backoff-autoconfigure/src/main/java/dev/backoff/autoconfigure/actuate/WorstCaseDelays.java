package dev.backoff.autoconfigure.actuate;

import java.time.Duration;

import dev.backoff.BackoffPolicy;
import dev.backoff.BackoffSchedule;
import org.jspecify.annotations.Nullable;

/**
 * The endpoint's two worst cases of a call's total wait. {@link #total}: the true bound. Before
 * each retry a call waits the longest of what its schedule draws, what its throttling schedule
 * draws when the failure was throttling, and a server's {@code Retry-After} hint, which is
 * honoured up to {@code max-retry-after} (a longer one ends the call); so each retry may wait up
 * to the largest of the three, and the call never past {@code max-elapsed}. {@link #schedule}:
 * the policy's own schedule, without server hints, as the preview's {@code worstCaseElapsed}
 * column adds it up.
 */
final class WorstCaseDelays {

	private WorstCaseDelays() {
	}

	/**
	 * @param policy a policy
	 * @return the longest a call under it can wait in all, server hints and throttling included
	 */
	static Duration total(BackoffPolicy policy) {
		BackoffSchedule schedule = policy.getSchedule();
		BackoffSchedule throttling = schedule.getThrottling();
		long hint = nanos(policy.getMaxRetryAfter());
		int retries = schedule.getMaxRetries();
		long total = 0;
		for (int retry = 1; retry <= retries; retry++) {
			long longest = Math.max(hint,
					Math.max(longest(schedule, retry), (throttling != null) ? longest(throttling, retry) : 0));
			if (retry < retries && isLast(schedule, retry) && (throttling == null || isLast(throttling, retry))) {
				// Every wait from here on is this one's: the rest in one step, however many retries remain.
				long rest = retries - retry + 1;
				total = add(total, (longest > Long.MAX_VALUE / rest) ? Long.MAX_VALUE : longest * rest);
				break;
			}
			total = add(total, longest);
			if (total == Long.MAX_VALUE) {
				break;
			}
		}
		return capped(Duration.ofNanos(total), policy);
	}

	/**
	 * @param policy a policy
	 * @return the longest its own schedule can make a call wait (the throttling schedule's when
	 * it has one), without server hints; never past {@code max-elapsed}
	 */
	static Duration schedule(BackoffPolicy policy) {
		return capped(policy.getSchedule().worstCaseTotalDelay(), policy);
	}

	/** Whether the retry's longest wait is the schedule's last growth: the next is the same. */
	private static boolean isLast(BackoffSchedule schedule, int retry) {
		return longest(schedule, retry) == longest(schedule, retry + 1);
	}

	private static long longest(BackoffSchedule schedule, int retry) {
		return nanos(schedule.longestDelay(retry));
	}

	private static Duration capped(Duration worstCase, BackoffPolicy policy) {
		Duration maxElapsed = policy.getRules().getMaxElapsed();
		return (maxElapsed != null && maxElapsed.compareTo(worstCase) < 0) ? maxElapsed : worstCase;
	}

	private static long nanos(@Nullable Duration duration) {
		if (duration == null) {
			return 0;
		}
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

	private static long add(long a, long b) {
		long sum = a + b;
		return (sum < 0) ? Long.MAX_VALUE : sum;
	}

}
