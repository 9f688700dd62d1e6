package dev.backoff;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Retries the annotated method (or every public method of the annotated type) with
 * exponential backoff and jitter when it fails.
 *
 * <p>The policy is the named one from {@code backoff.policies.<name>} in
 * {@code application.yml}, or {@code backoff.defaults} when no name is given; any attribute
 * set here overrides that policy's setting for this method only. String attributes take the
 * same values as the YAML keys (durations such as {@code 250ms} or {@code 2s}) and may use
 * {@code ${…}} placeholders. On a method and its type, the method's annotation wins.
 *
 * <pre class="code">
 * &#64;Backoff("quotes")
 * Quote fetch(String id) { … }
 *
 * &#64;Backoff(maxAttempts = "5", baseDelay = "200ms", jitter = Jitter.EQUAL)
 * Quote fetchWithOwnPolicy(String id) { … }
 * </pre>
 *
 * <p>{@code maxAttempts} counts every call, the first included. The return type may be a
 * plain value, a {@code CompletionStage}/{@code CompletableFuture} (retried without blocking
 * a thread) or, with Reactor present, a {@code Mono}/{@code Flux}.
 *
 * @see BackoffPolicy
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface Backoff {

	/**
	 * The name of the policy under {@code backoff.policies}; empty for {@code backoff.defaults}.
	 * Same as {@link #policy()}.
	 * @return the policy name
	 */
	String value() default "";

	/**
	 * The name of the policy under {@code backoff.policies}; empty for {@code backoff.defaults}.
	 * Same as {@link #value()}.
	 * @return the policy name
	 */
	String policy() default "";

	/**
	 * Overrides {@code max-attempts}: all calls, the first included, e.g. {@code "5"}.
	 * @return the number of attempts, or empty to keep the policy's
	 */
	String maxAttempts() default "";

	/**
	 * Overrides {@code base-delay}, the first retry's ceiling, e.g. {@code "200ms"}.
	 * @return a duration, or empty to keep the policy's
	 */
	String baseDelay() default "";

	/**
	 * Overrides {@code max-delay}, the cap of every delay, e.g. {@code "5s"}.
	 * @return a duration, or empty to keep the policy's
	 */
	String maxDelay() default "";

	/**
	 * Overrides {@code multiplier}, the factor between consecutive ceilings, e.g. {@code "1.5"}.
	 * @return a number of at least 1, or empty to keep the policy's
	 */
	String multiplier() default "";

	/**
	 * Overrides {@code jitter}; at most one value.
	 * @return the jitter, or none to keep the policy's
	 */
	Jitter[] jitter() default {};

	/**
	 * Overrides {@code max-elapsed}, the budget for attempts plus waits, e.g. {@code "30s"}.
	 * @return a duration, or empty to keep the policy's
	 */
	String maxElapsed() default "";

	/**
	 * Overrides {@code attempt-timeout}, how long one attempt may take before it fails with a
	 * {@link java.util.concurrent.TimeoutException} and is retried, e.g. {@code "2s"}. Only for
	 * methods that return {@code CompletionStage}, {@code Mono} or {@code Flux}: on a blocking
	 * method it stops start-up, since Java cannot stop a thread safely.
	 * @return a duration, or empty to keep the policy's
	 */
	String attemptTimeout() default "";

	/**
	 * Overrides {@code hedge-delay}: how long a call waits for an answer before it sends another
	 * copy, e.g. {@code "50ms"} (see {@code maxHedges}).
	 * @return a duration, or empty to keep the policy's
	 */
	String hedgeDelay() default "";

	/**
	 * Overrides {@code max-hedges}, the extra copies a call may send (0 to 4), e.g. {@code "1"}. Only
	 * for idempotent methods that return {@code CompletionStage} or {@code Mono}, or {@code suspend}
	 * functions: on a blocking method or a {@code Flux} it stops start-up.
	 * @return a number, or empty to keep the policy's
	 */
	String maxHedges() default "";

	/**
	 * Overrides {@code hedge-percentile}: the hedge delay follows this percentile of the method's
	 * recent answer times, e.g. {@code "95"} for p95, with {@code hedgeDelay} while they are too few.
	 * @return a number from 50 to below 100, or empty to keep the policy's
	 */
	String hedgePercentile() default "";

	/**
	 * Overrides {@code retry-on}: retry only these failures (or failures caused by them).
	 * @return the types, or none to keep the policy's
	 */
	Class<? extends Throwable>[] retryOn() default {};

	/**
	 * Overrides {@code abort-on}: never retry these failures (or failures caused by them).
	 * @return the types, or none to keep the policy's
	 */
	Class<? extends Throwable>[] abortOn() default {};

	/**
	 * Overrides {@code retry-on-exception}: a SpEL expression on {@code #exception}, the
	 * failure of an attempt, that decides whether it is retried from what it says rather than
	 * only its class, e.g. {@code "#exception.code == 'THROTTLED'"}, or a bean's test,
	 * {@code "@transientErrors.test(#exception)"}. {@code abortOn} still wins and {@code retryOn}
	 * still narrows; it replaces the default classification, so it may also widen it. Parsed
	 * once, at start-up. For results (polling) use {@link #retryIf()}.
	 * @return the expression, or empty to keep the policy's
	 */
	String retryOnException() default "";

	/**
	 * A SpEL expression on {@code #result} that asks for another attempt while it is true, for
	 * polling, e.g. {@code "#result.status == 'NOT_READY'"} for a String status. SpEL's
	 * {@code ==} does not turn an enum into a String: for an enum status compare its name,
	 * {@code "#result.status.name() == 'NOT_READY'"}, or the constant,
	 * {@code "#result.status == T(com.example.Status).NOT_READY"}. Parsed once, at start-up,
	 * where every {@code T(…)} type must exist; when attempts run out the last result is
	 * returned. An expression that cannot be evaluated on a result (a {@code null} one, say) or
	 * that gives no boolean never turns a success into a failure: the result is returned
	 * without a retry, and a warning logged.
	 * @return the expression, or empty for none
	 */
	String retryIf() default "";

	/**
	 * The name of a method of the same bean to call when the call finally fails: it takes the
	 * same parameters plus, optionally, a last parameter for the final failure, and returns a
	 * type assignable to the annotated method's, generics included. Checked at start-up.
	 * <p>It answers for {@link Exception}s, or only those of its failure parameter's type when
	 * that is narrower; an {@link Error} reaches the caller unless that parameter names an
	 * {@code Error} type. It does not answer for a failure that an enclosing {@code @Backoff}
	 * call will retry: that failure goes to the enclosing call. A public fallback is called
	 * through the proxy, so that its own advice applies; any other on the target bean.
	 * @return the method name, or empty for none
	 */
	String fallback() default "";

}
