package dev.backoff.spring.metrics;

import java.util.concurrent.TimeUnit;

import dev.backoff.BackoffSchedule;
import dev.backoff.spring.operation.BackoffOperation;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import org.jspecify.annotations.Nullable;

/**
 * {@value #NAME} (gauge: policy, method): the longest wait a method's own schedule can draw
 * before its last retry, after its annotation's overrides and live changes: the last retry's
 * ceiling ({@code max-delay} once the ceilings reach it), or the throttling schedule's when that
 * is longer. So an alert compares each method's waits with what its own settings allow,
 * rather than with its policy's {@code max-delay}, which an annotation may override and which
 * a short {@code max-attempts} never reaches. A server's {@code Retry-After} may set a longer
 * wait (up to {@code max-retry-after}). Registered with the method's {@code backoff.delay} timer,
 * at its first wait.
 */
final class DelayCeiling {

	/** The longest wait a method's schedule can draw. */
	static final String NAME = "backoff.delay.ceiling";

	private DelayCeiling() {
	}

	static void register(MeterRegistry registry, Tags tags, BackoffOperation operation) {
		TimeGauge.builder(NAME, operation, TimeUnit.MILLISECONDS, DelayCeiling::millis)
			.description("The longest wait the method's own schedule can draw before its last retry "
					+ "(its throttling schedule's when longer); Retry-After waits may be longer")
			.tags(tags)
			.strongReference(true)
			.register(registry);
	}

	/** Read at each scrape: the policy in force now, live changes included. */
	static double millis(BackoffOperation operation) {
		BackoffSchedule schedule = operation.getPolicy().getSchedule();
		return Math.max(longestNanos(schedule), longestNanos(schedule.getThrottling())) / 1e6;
	}

	private static long longestNanos(@Nullable BackoffSchedule schedule) {
		// The ceilings never fall from one retry to the next: the last one's is the longest.
		return (schedule != null && schedule.getMaxRetries() > 0)
				? schedule.longestDelay(schedule.getMaxRetries()).toNanos() : 0;
	}

}
