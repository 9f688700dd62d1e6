package dev.backoff.spring.data;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import dev.backoff.BackoffPolicy;
import dev.backoff.RetryRules;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Stops the retries of one method's calls inside a caller's transaction once it is marked
 * rollback-only. Such a retry is pointless and misleading: it may succeed and count
 * {@code success_after_retry}, yet the transaction that the first failure marked can only roll
 * back, and the caller then gets {@code UnexpectedRollbackException}. The call ends instead with
 * its failure, as {@code not_retryable}, and the first time a WARN says what to do: retry around
 * the transaction, not inside it.
 *
 * <p>Nothing is asked of a call that succeeds: the rule is asked only of a failure, after the
 * method's own rules, and costs one thread-local read outside a transaction.
 */
public final class RollbackOnlyRetries {

	private static final Log logger = LogFactory.getLog("dev.backoff");

	private final Supplier<String> name;

	private final AtomicBoolean warned = new AtomicBoolean();

	/** The last policy guarded and its guarded form, replaced together when the policy changes. */
	private volatile @Nullable Guarded guarded;

	/**
	 * @param name what starts the method's log lines ({@code @Backoff(owners) OwnerRepository.save: }),
	 * asked the first time a retry is stopped
	 */
	public RollbackOnlyRetries(Supplier<String> name) {
		this.name = name;
	}

	/**
	 * @param policy the method's policy for a blocking call, whose failures are judged on the
	 * caller's thread
	 * @return a policy that retries as that one does, but no failure while the thread's
	 * transaction is marked rollback-only; made once per policy
	 */
	public BackoffPolicy policyFor(BackoffPolicy policy) {
		Guarded guarded = this.guarded;
		if (guarded == null || guarded.policy() != policy) {
			guarded = new Guarded(policy, guard(policy));
			this.guarded = guarded;
		}
		return guarded.guarded();
	}

	private BackoffPolicy guard(BackoffPolicy policy) {
		RetryRules rules = policy.getRules();
		// Asked after abort-on and retry-on, as retry-on-exception is: the method's own rules then decide as before.
		return policy.toBuilder().retryOnException((failure) -> !refused() && rules.isRetryable(failure)).build();
	}

	private boolean refused() {
		if (!Transactions.isRollbackOnly()) {
			return false;
		}
		if (this.warned.compareAndSet(false, true)) {
			logger.warn(this.name.get() + "not retried, and no later call will be while its caller's transaction "
					+ "is marked rollback-only: a retry inside that transaction cannot commit, and the caller would get "
					+ "UnexpectedRollbackException. Retry around the transaction instead: put @Backoff on the "
					+ "@Transactional method that calls this one, or call it outside a transaction.");
		}
		return true;
	}

	private record Guarded(BackoffPolicy policy, BackoffPolicy guarded) {
	}

}
