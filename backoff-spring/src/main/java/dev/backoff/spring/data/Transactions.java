package dev.backoff.spring.data;

import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.interceptor.TransactionAspectSupport;
import org.springframework.transaction.support.ResourceHolderSupport;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * The Spring-managed transaction of the current thread, as far as a retry needs it, read
 * without a hard dependency on spring-tx: without it there is never a transaction.
 */
public final class Transactions {

	private static final boolean PRESENT = ClassUtils.isPresent(
			"org.springframework.transaction.support.TransactionSynchronizationManager",
			Transactions.class.getClassLoader());

	private Transactions() {
	}

	/**
	 * Whether the transaction active on this thread is marked rollback-only: by the
	 * {@code @Transactional} method that began it ({@code TransactionAspectSupport}), or by a
	 * resource bound to it (a JDBC connection, a JPA entity manager), which is where a
	 * participating transaction that failed marks it (as Spring Data repositories' do).
	 * @return {@code true} when no commit can follow: the transaction will roll back whatever
	 * happens on this thread now
	 */
	public static boolean isRollbackOnly() {
		return PRESENT && SpringTx.isRollbackOnly();
	}

	/** Kept apart so that spring-tx's types load only when it is present. */
	private static final class SpringTx {

		private SpringTx() {
		}

		static boolean isRollbackOnly() {
			if (!TransactionSynchronizationManager.isActualTransactionActive()) {
				return false;
			}
			try {
				if (TransactionAspectSupport.currentTransactionStatus().isRollbackOnly()) {
					return true;
				}
			}
			catch (NoTransactionException ex) {
				// Begun by a TransactionTemplate or a transaction manager directly: its resources say.
			}
			for (Object resource : TransactionSynchronizationManager.getResourceMap().values()) {
				if (resource instanceof ResourceHolderSupport holder && holder.isRollbackOnly()) {
					return true;
				}
			}
			return false;
		}

	}

}
