package dev.backoff.spring.config;

import dev.backoff.BackoffPolicy;

/**
 * Tunes a named policy in code, for what {@code application.yml} cannot say (a
 * {@code retryIfResult} predicate, a classification of failures, a Retry-After source), as
 * Resilience4j's {@code RetryConfigCustomizer} does, instead of replacing the whole
 * {@link BackoffPolicies}. Every bean of this type is called, in order, for every policy
 * ({@value BackoffPolicies#DEFAULTS} included: what it sets there is not inherited by the
 * others), after the configuration's values and before a change made at run time and a
 * {@code @Backoff}'s attributes, which win over it. Called again whenever the policy is
 * built anew (a change at run time, a refresh). A value the policy's rules refuse stops
 * start-up, naming the customizer's policy and the setting.
 */
@FunctionalInterface
public interface BackoffPolicyCustomizer {

	/**
	 * @param name the policy's name, or {@value BackoffPolicies#DEFAULTS}
	 * @param builder the policy as configured, to change
	 */
	void customize(String name, BackoffPolicy.Builder builder);

}
