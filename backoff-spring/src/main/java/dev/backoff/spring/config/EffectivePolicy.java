package dev.backoff.spring.config;

import dev.backoff.BackoffPolicy;
import dev.backoff.BackoffSchedule;
import dev.backoff.HedgeTokens;
import dev.backoff.OverloadControls;
import dev.backoff.RetryBudget;
import dev.backoff.RetryRules;
import dev.backoff.spring.data.DataAccessRetry;
import org.jspecify.annotations.Nullable;

/**
 * A policy in force with what the named policy adds beside the value: its retry budget,
 * whether its HTTP clients retry non-idempotent requests, how it classifies data access, what
 * its hedges are paid from, and its overload controls.
 * @param policy the effective policy
 * @param budget the named policy's retry budget, or {@code null} for none
 * @param retryNonIdempotent whether its HTTP clients retry POST and PATCH without an Idempotency-Key
 * @param retryOnDataAccess its {@code retry-on-data-access}, or {@code null} when unset
 * @param hedgeTokens the named policy's hedge bucket ({@code hedge-max-extra-load}), shared by every
 * caller of the policy, annotation overrides included; {@code null} only where none is kept
 * @param controls the named policy's admission and pacing, or {@code null} for neither
 */
public record EffectivePolicy(BackoffPolicy policy, @Nullable RetryBudget budget, boolean retryNonIdempotent,
		@Nullable DataAccessRetry retryOnDataAccess, @Nullable HedgeTokens hedgeTokens,
		@Nullable OverloadControls controls) {

	/** A policy in force without overload controls. */
	public EffectivePolicy(BackoffPolicy policy, @Nullable RetryBudget budget, boolean retryNonIdempotent,
			@Nullable DataAccessRetry retryOnDataAccess, @Nullable HedgeTokens hedgeTokens) {
		this(policy, budget, retryNonIdempotent, retryOnDataAccess, hedgeTokens, null);
	}

	/** A policy in force whose {@code retry-on-data-access} is unset, without a hedge bucket. */
	public EffectivePolicy(BackoffPolicy policy, @Nullable RetryBudget budget, boolean retryNonIdempotent) {
		this(policy, budget, retryNonIdempotent, null, null);
	}

	/** A policy in force without a hedge bucket. */
	public EffectivePolicy(BackoffPolicy policy, @Nullable RetryBudget budget, boolean retryNonIdempotent,
			@Nullable DataAccessRetry retryOnDataAccess) {
		this(policy, budget, retryNonIdempotent, retryOnDataAccess, null);
	}

	/** @return whether its {@code exception} tag names the transient cause that a data-access failure matched */
	public boolean namesDataAccessCause() {
		return this.retryOnDataAccess == DataAccessRetry.TRANSIENT;
	}

	BackoffSchedule schedule() {
		return this.policy.getSchedule();
	}

	RetryRules rules() {
		return this.policy.getRules();
	}

}
