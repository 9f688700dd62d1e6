package dev.backoff.rewrite;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.openrewrite.java.tree.Expression;
import org.openrewrite.java.tree.J;
import org.openrewrite.java.tree.JavaType;
import org.openrewrite.java.tree.TypeUtils;

/**
 * Spring Retry's {@code @Retryable} (with its nested {@code @Backoff}) as Backoff's
 * {@code @Backoff}, keeping the schedule Spring Retry 2.0 computes from the same attributes
 * ({@code AnnotationAwareRetryOperationsInterceptor} and {@code BackOffPolicyBuilder}):
 * <ul>
 * <li>no multiplier: a fixed wait of {@code delay} (1 s by default, at least 1 ms); with a
 * {@code maxDelay} above the delay, a wait drawn uniformly between the two;</li>
 * <li>a multiplier above 0: exponential from {@code delay} (at least 1 ms), the multiplier
 * taken as at least 1, capped at {@code maxDelay}, or at 30 s when {@code maxDelay} is not
 * above the delay; with {@code random}, each wait drawn between the exponential value and
 * multiplier times it;</li>
 * <li>{@code maxAttempts} counts every call, as ours does.</li>
 * </ul>
 * Expressions in {@code #{…}} and {@code ${…}} placeholders are carried into our string
 * attributes; an expression without delimiters, evaluated by Spring Retry on every retry with
 * the method's arguments, cannot be, nor can {@code stateful}, {@code listeners},
 * {@code interceptor}, {@code notRecoverable} or a {@code randomExpression}: such an annotation
 * is left whole.
 */
final class SpringRetryMapping {

	static final String RETRYABLE = "org.springframework.retry.annotation.Retryable";

	/** Spring Retry's {@code ExponentialBackOffPolicy.DEFAULT_MAX_INTERVAL}. */
	private static final long DEFAULT_MAX_INTERVAL = 30_000;

	/** Backoff's default {@code max-delay}, which a fixed delay above it must raise. */
	private static final long OUR_MAX_DELAY = 20_000;

	private SpringRetryMapping() {
	}

	static BackoffAnnotation map(J.Annotation retryable) {
		Attributes retry = new Attributes(retryable);
		BackoffAnnotation ours = new BackoffAnnotation();
		if (retry.isTrue("stateful") || retry.has("stateful") && retry.literal("stateful") == null) {
			ours.unmigratable("stateful retry (rethrows and retries on the next call with the same arguments)");
		}
		if (retry.isSet("interceptor")) {
			ours.unmigratable("interceptor = a retry interceptor bean");
		}
		if (retry.isSet("listeners")) {
			ours.unmigratable("listeners = RetryListener beans");
		}
		if (retry.isSet("notRecoverable")) {
			ours.unmigratable("notRecoverable (failures that skip the @Recover method)");
		}
		J.Annotation backoff = retry.annotation("backoff");
		constants(retry, ours, "maxAttemptsExpression", "exceptionExpression");
		String recover = retry.constantText("recover");
		if (recover != null) {
			// Taken as absent, a @Recover of another name that fits by shape would become the fallback.
			ours.unmigratable(recover + " is a constant: the recipe cannot read which @Recover method it names");
		}
		if (backoff != null) {
			constants(new Attributes(backoff), ours, "delayExpression", "maxDelayExpression", "multiplierExpression",
					"randomExpression");
		}
		maxAttempts(retry, ours);
		exceptions(retry, ours);
		String exceptionExpression = retry.string("exceptionExpression");
		if (exceptionExpression != null) {
			ours.string("retryOnException", SpelRoot.explicit(exceptionExpression));
		}
		backOff((backoff != null) ? new Attributes(backoff) : null, ours);
		if (retry.isSet("label")) {
			ours.note("label dropped (Backoff names a method's meters by its class and method)");
		}
		return ours;
	}

	/**
	 * An expression attribute given as a constant: Spring Retry reads its text (a placeholder, a
	 * bean expression, or one evaluated on every retry) and the recipe cannot, where the
	 * attribute would otherwise be taken as absent.
	 */
	private static void constants(Attributes attributes, BackoffAnnotation ours, String... names) {
		for (String name : names) {
			String constant = attributes.constantText(name);
			if (constant != null) {
				ours.unmigratable(constant + " is a constant whose text the recipe cannot read (a placeholder, a bean "
						+ "expression, or one evaluated on every retry)");
			}
		}
	}

	private static void maxAttempts(Attributes retry, BackoffAnnotation ours) {
		String expression = retry.string("maxAttemptsExpression");
		if (expression != null) {
			carry(expression, "maxAttempts", "maxAttemptsExpression", ours);
			return;
		}
		if (!retry.has("maxAttempts")) {
			return;	// 3, as ours
		}
		Long attempts = retry.longValue("maxAttempts");
		if (attempts == null) {
			ours.source("maxAttempts", retry.constantString("maxAttempts"));
		}
		else if (attempts < 1) {
			ours.unmigratable("maxAttempts = " + attempts + " (Backoff needs at least one call)");
		}
		else if (attempts != 3) {
			ours.string("maxAttempts", Long.toString(attempts));
		}
	}

	private static void exceptions(Attributes retry, BackoffAnnotation ours) {
		List<Expression> includes = retry.classes("value");
		if (includes.isEmpty()) {
			includes = retry.classes("retryFor");
		}
		if (includes.isEmpty()) {
			includes = retry.classes("include");
		}
		List<Expression> excludes = retry.classes("noRetryFor");
		if (excludes.isEmpty()) {
			excludes = retry.classes("exclude");
		}
		// An excluded class above an included one: Spring Retry lets the closer class decide, so the included
		// subclass is retried and the rest of the excluded class is not, which retryOn alone already gives
		// (Backoff refuses a retryOn type under an abortOn one: it could never be retried).
		List<Expression> included = includes;
		excludes = new ArrayList<>(excludes);
		excludes.removeIf((exclude) -> included.stream().anyMatch((include) -> isStrictSubclass(include, exclude)));
		if (!includes.isEmpty()) {
			ours.source("retryOn", Attributes.classArray(includes));
		}
		if (!excludes.isEmpty()) {
			ours.source("abortOn", Attributes.classArray(excludes));
		}
		if (!includes.isEmpty() && !excludes.isEmpty()) {
			// Spring Retry classifies the thrown type first and looks at its causes only when that
			// type is unclassified (BinaryExceptionClassifier); Backoff's abortOn matches the causes too.
			ours.note("a failure of a retried type caused by an excluded one was retried by Spring Retry (it reads "
					+ "the causes only of a failure whose own type it does not classify); Backoff's abortOn also "
					+ "matches the causes, so it is not retried");
		}
	}

	private static boolean isStrictSubclass(Expression subclass, Expression superclass) {
		JavaType.FullyQualified sub = Attributes.classType(subclass);
		JavaType.FullyQualified sup = Attributes.classType(superclass);
		return sub != null && sup != null && !TypeUtils.isOfType(sub, sup) && TypeUtils.isAssignableTo(sup, sub);
	}

	private static void backOff(@Nullable Attributes backoff, BackoffAnnotation ours) {
		Long delay = 1000L;
		String delayText = null;
		if (backoff != null) {
			if (backoff.isSet("randomExpression")) {
				ours.unmigratable("randomExpression (random or not decided by an expression)");
			}
			delayText = backoff.string("delayExpression");
			if (delayText != null) {
				delay = null;
			}
			else {
				String attribute = backoff.has("delay") ? "delay" : backoff.has("value") ? "value" : null;
				if (attribute != null) {
					delay = backoff.longValue(attribute);
					if (delay == null) {
						delayText = backoff.constantString(attribute);
					}
				}
			}
		}
		String maxText = (backoff != null) ? backoff.string("maxDelayExpression") : null;
		Long max = (backoff != null && maxText == null) ? backoff.longValue("maxDelay") : null;
		if (backoff != null && maxText == null && backoff.has("maxDelay") && max == null) {
			maxText = backoff.constantString("maxDelay");
		}
		max = (max != null) ? max : (maxText == null) ? 0L : null;
		String multiplierText = (backoff != null) ? backoff.string("multiplierExpression") : null;
		Double multiplier = (backoff != null && multiplierText == null) ? backoff.doubleValue("multiplier") : null;
		if (backoff != null && multiplierText == null && backoff.has("multiplier") && multiplier == null) {
			multiplierText = backoff.constantString("multiplier");
		}
		if (multiplierText != null && BackoffAnnotation.isNumber(multiplierText)) {
			multiplier = Double.valueOf(multiplierText.trim());
			multiplierText = null;
		}
		multiplier = (multiplier != null) ? multiplier : (multiplierText == null) ? 0.0 : null;
		boolean random = backoff != null && backoff.isTrue("random");
		checkCarried(delayText, "delayExpression", ours);
		checkCarried(maxText, "maxDelayExpression", ours);
		checkCarried(multiplierText, "multiplierExpression", ours);
		if (multiplierText != null || multiplier > 0) {
			exponential(delay, delayText, max, maxText, multiplier, multiplierText, random, ours);
		}
		else if (maxText != null) {
			ours.unmigratable("maxDelayExpression without a multiplier");
		}
		else if (delay == null && max > 0) {
			ours.unmigratable("a delay known only at start-up beside maxDelay without a multiplier (Spring Retry waits "
					+ "uniformly between them when maxDelay is above the delay, else a fixed delay)");
		}
		else if (delay != null && max > delay) {
			uniform(delay, max, ours);
		}
		else {
			fixed(delay, delayText, ours);
		}
	}

	private static void exponential(@Nullable Long delay, @Nullable String delayText, @Nullable Long max,
			@Nullable String maxText, @Nullable Double multiplier, @Nullable String multiplierText, boolean random,
			BackoffAnnotation ours) {
		if (delay != null && max != null) {
			long base = Math.max(delay, 1);
			long cap = (max > delay) ? max : DEFAULT_MAX_INTERVAL;
			// Spring Retry caps every wait, the first too; ours refuses a cap below the base.
			base = Math.min(base, cap);
			ours.string("baseDelay", Durations.format(base));
			ours.string("maxDelay", Durations.format(cap));
		}
		else {
			putDuration("baseDelay", delay, delayText, ours);
			if (max != null && max > 0) {
				ours.string("maxDelay", Durations.format(max));
			}
			else if (maxText != null) {
				putText("maxDelay", maxText, ours);
			}
			else {
				ours.string("maxDelay", Durations.format(DEFAULT_MAX_INTERVAL));
			}
			ours.note("Spring Retry takes a delay under 1 ms as 1 ms and a maxDelay not above the delay as 30s; "
					+ "Backoff takes the values as they are and refuses a maxDelay below the baseDelay at start-up");
		}
		if (multiplier != null) {
			ours.string("multiplier", Durations.number(Math.max(multiplier, 1.0)));
		}
		else {
			atLeastOne(Objects.requireNonNull(multiplierText), ours);
			if (max == null || delay == null || max > delay) {
				ours.note("a multiplier known only at start-up that is 0 or less made Spring Retry wait uniformly "
						+ "between delay and maxDelay (above the delay); here it is taken as 1, a fixed wait");
			}
		}
		if (random) {
			ours.jitter("EQUAL");
			ours.note("random = true waited between v(n) and multiplier x v(n); EQUAL jitter waits between v(n)/2 and v(n)");
		}
		else {
			ours.jitter("NONE");
		}
	}

	/**
	 * A multiplier known only at start-up, as Spring Retry takes it: one of 1 or less is 1 (no
	 * growth), and Backoff would refuse one below 1.
	 */
	private static void atLeastOne(String text, BackoffAnnotation ours) {
		// A conditional rather than Math.max, which SpEL finds ambiguous for an integer.
		if (text.startsWith("\"\" + ")) {
			String constant = text.substring("\"\" + ".length());
			ours.source("multiplier", "\"#{(\" + " + constant + " + \") > 1 ? (\" + " + constant + " + \") : 1}\"");
			return;
		}
		String value = text.trim();
		if (BackoffAnnotation.isBeanExpression(value)) {
			value = value.substring(2, value.length() - 1).trim();
		}
		ours.string("multiplier", "#{(" + value + ") > 1 ? (" + value + ") : 1}");
	}

	private static void uniform(long delay, long max, BackoffAnnotation ours) {
		if (delay == 0) {
			// uniform(0, max) is exactly FULL jitter on a fixed ceiling of max.
			ours.string("baseDelay", Durations.format(max));
			ours.string("maxDelay", Durations.format(max));
			ours.string("multiplier", "1");
			ours.jitter("FULL");
			return;
		}
		ours.string("baseDelay", Durations.format(delay));
		ours.string("maxDelay", Durations.format(max));
		ours.jitter("DECORRELATED");
		ours.note("a wait drawn uniformly between " + Durations.format(delay) + " and " + Durations.format(max)
				+ " is now DECORRELATED jitter between the same bounds");
	}

	private static void fixed(@Nullable Long delay, @Nullable String delayText, BackoffAnnotation ours) {
		if (delay != null) {
			long wait = Math.max(delay, 1);
			ours.string("baseDelay", Durations.format(wait));
			if (wait > OUR_MAX_DELAY) {
				ours.string("maxDelay", Durations.format(wait));
			}
		}
		else {
			putText("baseDelay", delayText, ours);
			putText("maxDelay", delayText, ours);
		}
		ours.string("multiplier", "1");
		ours.jitter("NONE");
	}

	private static void putDuration(String name, @Nullable Long millis, @Nullable String text, BackoffAnnotation ours) {
		if (millis != null) {
			ours.string(name, Durations.format(millis));
		}
		else {
			putText(name, text, ours);
		}
	}

	/** A carried expression or placeholder, or the source of a constant expression ({@code "" + X}). */
	private static void putText(String name, @Nullable String text, BackoffAnnotation ours) {
		if (text == null) {
			return;
		}
		if (text.startsWith("\"\" + ")) {
			ours.source(name, text);
		}
		else {
			ours.string(name, text.trim());
		}
	}

	private static void carry(String expression, String name, String attribute, BackoffAnnotation ours) {
		checkCarried(expression, attribute, ours);
		putText(name, expression, ours);
	}

	private static void checkCarried(@Nullable String text, String attribute, BackoffAnnotation ours) {
		if (text == null || text.startsWith("\"\" + ") || BackoffAnnotation.isPlaceholder(text)
				|| BackoffAnnotation.isNumber(text)) {
			return;
		}
		if (BackoffAnnotation.isBeanExpression(text)) {
			return;	// evaluated once at start-up, by Spring Retry and by Backoff's attributes alike
		}
		ours.unmigratable(attribute + " \"" + text + "\" is evaluated on every retry (no #{...}): Backoff reads "
				+ "its attributes once");
	}

}
