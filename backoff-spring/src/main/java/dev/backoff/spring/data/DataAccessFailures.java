package dev.backoff.spring.data;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.Set;
import java.util.function.Predicate;

import dev.backoff.internal.CauseChain;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.transaction.TransactionException;
import org.springframework.util.ClassUtils;

/**
 * How a JDBC or JPA failure reads for retry, as {@code HttpFailures} reads an HTTP one: whether
 * another attempt may succeed. A failure is <em>transient</em> when a cause along its chain
 * (the failure first) is
 * <ul>
 * <li>a JDBC {@link SQLTransientException} (a pool's {@code SQLTransientConnectionException}, a
 * {@code SQLTimeoutException}, a {@code SQLTransactionRollbackException}) or
 * {@link SQLRecoverableException};
 * <li>a {@link SQLException} whose SQLState is {@code 40001} (serialization failure, a deadlock
 * victim on most databases) or {@code 40P01} (PostgreSQL's deadlock);
 * <li>Spring's {@link TransientDataAccessException} (among them {@code QueryTimeoutException},
 * {@code PessimisticLockingFailureException}, {@code CannotAcquireLockException} and
 * {@code OptimisticLockingFailureException}) or {@link RecoverableDataAccessException}.
 * </ul>
 * So a connection-pool time-out under JPA, a {@code CannotCreateTransactionException} caused by
 * {@code SQLTransientConnectionException}, is transient by its cause. Other data-access failures
 * (a {@link DataAccessException}, a {@link TransactionException} or a {@link SQLException} along
 * the chain: a constraint violation, bad SQL) are not retried. Needs spring-tx for Spring's
 * types; without it only the JDBC ones are read.
 */
public final class DataAccessFailures {

	private static final boolean TX_PRESENT = ClassUtils.isPresent("org.springframework.dao.DataAccessException",
			DataAccessFailures.class.getClassLoader());

	private static final Set<String> TRANSIENT_STATES = Set.of("40001", "40P01");

	private DataAccessFailures() {
	}

	/**
	 * The default classification of a policy with {@code retry-on-data-access: transient}.
	 * @param others how every failure that is not a data-access failure is classified: the
	 * policy's default classification without this one
	 * @return a data-access failure is retried when it is {@link #transientCause transient};
	 * any other by {@code others}; an {@link Error} never
	 */
	public static Predicate<Throwable> retryable(Predicate<? super Throwable> others) {
		return (failure) -> {
			if (!(failure instanceof Exception)) {
				return false;
			}
			if (transientCause(failure) != null) {
				return true;
			}
			return !isDataAccess(failure) && others.test(failure);
		};
	}

	/**
	 * @param failure an attempt's failure
	 * @return the first transient cause along its chain, the failure itself first, or
	 * {@code null} when it has none: the failure the {@code exception} tag names
	 */
	public static @Nullable Throwable transientCause(Throwable failure) {
		return CauseChain.first(failure, (cause) -> isTransient(cause) ? cause : null);
	}

	/**
	 * @param failure an attempt's failure
	 * @return whether a data-access failure is along its chain: a {@link SQLException}, or
	 * Spring's {@link DataAccessException} or {@link TransactionException}
	 */
	public static boolean isDataAccess(Throwable failure) {
		return CauseChain.first(failure, (cause) -> (cause instanceof SQLException
				|| (TX_PRESENT && SpringTypes.isDataAccess(cause))) ? Boolean.TRUE : null) != null;
	}

	private static boolean isTransient(Throwable failure) {
		if (failure instanceof SQLTransientException || failure instanceof SQLRecoverableException) {
			return true;
		}
		if (failure instanceof SQLException sql && sql.getSQLState() != null
				&& TRANSIENT_STATES.contains(sql.getSQLState())) {
			return true;
		}
		return TX_PRESENT && SpringTypes.isTransient(failure);
	}

	/** Kept apart so that spring-tx's types load only when it is present. */
	private static final class SpringTypes {

		private SpringTypes() {
		}

		static boolean isTransient(Throwable failure) {
			return failure instanceof TransientDataAccessException || failure instanceof RecoverableDataAccessException;
		}

		static boolean isDataAccess(Throwable failure) {
			return failure instanceof DataAccessException || failure instanceof TransactionException;
		}

	}

}
