package dev.backoff.rewrite;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.openrewrite.java.tree.Expression;
import org.openrewrite.java.tree.J;

/**
 * Spring Framework 7's {@code @Retryable} ({@code org.springframework.resilience.annotation})
 * as Backoff's {@code @Backoff}, keeping the schedule Framework computes: {@code maxRetries}
 * retries after the first call (3 by default, so 4 attempts), {@code delay} (1 s by default) times
 * {@code multiplier} (1 by default: a fixed delay) per retry, capped at {@code maxDelay}
 * (unlimited by default), all in {@code timeUnit}; {@code timeout} bounds attempts and waits
 * together, as our {@code maxElapsed}. Framework's ± {@code jitter} has no exact equivalent
 * (EQUAL jitter is written and reported), nor has a {@code predicate} class (the annotation is
 * left whole).
 */
final class FrameworkRetryableMapping {

	static final String RETRYABLE = "org.springframework.resilience.annotation.Retryable";

	private static final Map<String, Long> NANOS_PER_UNIT = Map.of("NANOSECONDS", 1L, "MICROSECONDS", 1_000L,
			"MILLISECONDS", 1_000_000L, "SECONDS", 1_000_000_000L, "MINUTES", 60_000_000_000L, "HOURS",
			3_600_000_000_000L, "DAYS", 86_400_000_000_000L);

	/** Backoff's default {@code max-delay}: a longer ceiling needs its own maxDelay. */
	private static final long OUR_MAX_DELAY_NANOS = 20_000_000_000L;

	private FrameworkRetryableMapping() {
	}

	static BackoffAnnotation map(J.Annotation retryable) {
		Attributes retry = new Attributes(retryable);
		BackoffAnnotation ours = new BackoffAnnotation();
		if (retry.has("predicate")) {
			ours.unmigratable("predicate = a MethodRetryPredicate class (write it as a bean and name it in "
					+ "retryOnException = \"@bean.shouldRetry(...)\")");
		}
		for (String name : List.of("maxRetriesString", "delayString", "multiplierString", "maxDelayString",
				"jitterString", "timeoutString")) {
			String constant = retry.constantText(name);
			if (constant != null) {
				// Its text is not in the annotation: taken as absent, the attribute's default would apply.
				ours.unmigratable(constant + " is a constant whose text the recipe cannot read");
			}
		}
		Long unit = unit(retry);
		if (unit == null) {
			ours.unmigratable("timeUnit is not a TimeUnit constant");
			return ours;
		}
		Long retries = maxRetries(retry, ours);
		Long base = duration(retry, "delay", unit, 1_000L * 1_000_000L, "baseDelay", ours);
		Double multiplier = multiplier(retry, ours);
		Long max = duration(retry, "maxDelay", unit, null, "maxDelay", ours);
		if (!ours.has("maxDelay")) {
			// Framework's maxDelay is unlimited: no cap is reached if ours sits at the last ceiling.
			String baseSource = ours.get("baseDelay");
			if (Double.valueOf(1.0).equals(multiplier) && base == null) {
				if (baseSource != null) {
					ours.source("maxDelay", baseSource);	// a fixed delay: the cap is the delay
				}
			}
			else if (Double.valueOf(1.0).equals(multiplier) || base != null && multiplier != null && retries != null) {
				retries = Double.valueOf(1.0).equals(multiplier) ? Long.valueOf(1) : retries;
				double top = base * Math.pow(multiplier, Math.max(retries - 1, 0));
				if (top > OUR_MAX_DELAY_NANOS) {
					long nanos = (top >= Long.MAX_VALUE) ? Long.MAX_VALUE : (long) Math.ceil(top);
					ours.string("maxDelay", Durations.formatNanos(roundUpToMillis(nanos)));
				}
			}
			else {
				ours.note("Framework's maxDelay is unlimited; Backoff caps every wait at backoff.defaults.max-delay "
						+ "(20s unless set)");
			}
		}
		else if (max != null && base != null && max < base) {
			ours.note("maxDelay below delay: Backoff refuses it at start-up");
		}
		boolean jitter = (retry.has("jitter") && !Long.valueOf(0).equals(retry.longValue("jitter")))
				|| retry.string("jitterString") != null && !"0".equals(retry.string("jitterString"));
		if (jitter) {
			ours.jitter("EQUAL");
			ours.note("jitter of +/- a fixed amount is now EQUAL jitter: waits between v(n)/2 and v(n)");
		}
		else {
			ours.jitter("NONE");
		}
		duration(retry, "timeout", unit, null, "maxElapsed", ours);
		List<Expression> includes = retry.classes("value");
		if (includes.isEmpty()) {
			includes = retry.classes("includes");
		}
		if (!includes.isEmpty()) {
			ours.source("retryOn", Attributes.classArray(includes));
		}
		List<Expression> excludes = retry.classes("excludes");
		if (!excludes.isEmpty()) {
			ours.source("abortOn", Attributes.classArray(excludes));
		}
		return ours;
	}

	private static @Nullable Long unit(Attributes retry) {
		Expression unit = retry.get("timeUnit");
		if (unit == null) {
			return NANOS_PER_UNIT.get("MILLISECONDS");
		}
		String name = (unit instanceof J.FieldAccess access) ? access.getSimpleName()
				: (unit instanceof J.Identifier identifier) ? identifier.getSimpleName() : "";
		return NANOS_PER_UNIT.get(name);
	}

	/** @return the number of retries when known */
	private static @Nullable Long maxRetries(Attributes retry, BackoffAnnotation ours) {
		String text = retry.string("maxRetriesString");
		if (text != null) {
			if (BackoffAnnotation.isNumber(text)) {
				long retries = Long.parseLong(text.trim());
				ours.string("maxAttempts", Long.toString(retries + 1));
				return retries;
			}
			String inner = BackoffAnnotation.isBeanExpression(text) ? text.trim().substring(2, text.trim().length() - 1)
					: text.trim();
			// Backoff's attributes resolve placeholders, then bean expressions, as @Value does.
			ours.string("maxAttempts", "#{(" + inner + ") + 1}");
			return null;
		}
		if (!retry.has("maxRetries")) {
			ours.string("maxAttempts", "4");
			return 3L;
		}
		Long retries = retry.longValue("maxRetries");
		if (retries == null) {
			ours.source("maxAttempts", "\"\" + (" + Attributes.operandOfPlus(retry.get("maxRetries")) + " + 1)");
			return null;
		}
		ours.string("maxAttempts", Long.toString(retries + 1));
		return retries;
	}

	private static @Nullable Double multiplier(Attributes retry, BackoffAnnotation ours) {
		String text = retry.string("multiplierString");
		if (text != null) {
			ours.string("multiplier", text.trim());
			return BackoffAnnotation.isNumber(text) ? Double.valueOf(text.trim()) : null;
		}
		if (!retry.has("multiplier")) {
			ours.string("multiplier", "1");
			return 1.0;
		}
		Double multiplier = retry.doubleValue("multiplier");
		if (multiplier == null) {
			ours.source("multiplier", retry.constantString("multiplier"));
			return null;
		}
		ours.string("multiplier", Durations.number(multiplier));
		return multiplier;
	}

	/**
	 * A duration attribute and its {@code …String} form, in {@code timeUnit}, written as ours.
	 * @return the duration in nanoseconds when known
	 */
	private static @Nullable Long duration(Attributes retry, String attribute, long unit, @Nullable Long fallback,
			String ourName, BackoffAnnotation ours) {
		String text = retry.string(attribute + "String");
		if (text != null) {
			if (BackoffAnnotation.isNumber(text)) {
				long nanos = Math.multiplyExact(Long.parseLong(text.trim()), unit);
				writeNanos(attribute, nanos, ourName, ours);
				return nanos;
			}
			if (unit != 1_000_000L && (BackoffAnnotation.isPlaceholder(text) || BackoffAnnotation.isBeanExpression(text))) {
				ours.unmigratable(attribute + "String " + text + " with a timeUnit other than MILLISECONDS: a bare "
						+ "number there is read as milliseconds by Backoff");
				return null;
			}
			ours.string(ourName, text.trim());
			return null;
		}
		if (!retry.has(attribute)) {
			if (fallback != null) {
				writeNanos(attribute, fallback, ourName, ours);
			}
			return fallback;
		}
		Long value = retry.longValue(attribute);
		if (value == null) {
			if (unit != 1_000_000L) {
				ours.unmigratable(attribute + " is a constant in a timeUnit other than MILLISECONDS");
				return null;
			}
			ours.source(ourName, retry.constantString(attribute));
			return null;
		}
		long nanos = (value == Long.MAX_VALUE) ? Long.MAX_VALUE : Math.multiplyExact(value, unit);
		writeNanos(attribute, nanos, ourName, ours);
		return nanos;
	}

	private static void writeNanos(String attribute, long nanos, String ourName, BackoffAnnotation ours) {
		if (attribute.equals("timeout") && nanos == 0) {
			return;	// no timeout
		}
		if (attribute.equals("maxDelay") && nanos == Long.MAX_VALUE) {
			return;	// unlimited, the default
		}
		ours.string(ourName, Durations.formatNanos(nanos));
	}

	private static long roundUpToMillis(long nanos) {
		long millis = nanos / 1_000_000L + ((nanos % 1_000_000L == 0) ? 0 : 1);
		return Math.multiplyExact(millis, 1_000_000L);
	}

}
