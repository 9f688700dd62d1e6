package dev.backoff.spring.config;

import dev.backoff.BackoffPolicy;
import dev.backoff.BackoffSchedule;
import dev.backoff.RetryBudget;
import dev.backoff.RetryRules;
import org.jspecify.annotations.Nullable;

/**
 * A policy in force with what the named policy adds beside the value: its retry budget and
 * whether its HTTP clients retry non-idempotent requests.
 * @param policy the effective policy
 * @param budget the named policy's retry budget, or {@code null} for none
 * @param retryNonIdempotent whether its HTTP clients retry POST and PATCH without an Idempotency-Key
 */
public record EffectivePolicy(BackoffPolicy policy, @Nullable RetryBudget budget, boolean retryNonIdempotent) {

	BackoffSchedule schedule() {
		return this.policy.getSchedule();
	}

	RetryRules rules() {
		return this.policy.getRules();
	}

}
