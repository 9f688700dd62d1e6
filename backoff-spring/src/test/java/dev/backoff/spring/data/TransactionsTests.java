package dev.backoff.spring.data;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Transactions} reads a transaction that a {@code TransactionTemplate} began, where no
 * {@code @Transactional} method's status is at hand: a participating transaction that failed
 * marks the connection it shares rollback-only, and that is what it finds.
 */
class TransactionsTests {

	private final EmbeddedDatabase database = new EmbeddedDatabaseBuilder().generateUniqueName(true)
		.setType(EmbeddedDatabaseType.H2)
		.build();

	private final TransactionTemplate transactions = new TransactionTemplate(
			new DataSourceTransactionManager(this.database));

	@AfterEach
	void shutdown() {
		this.database.shutdown();
	}

	@Test
	void aParticipatingTransactionThatFailedMarksTheOuterOneRollbackOnly() {
		List<Boolean> seen = new ArrayList<>();
		seen.add(Transactions.isRollbackOnly());
		this.transactions.executeWithoutResult((outer) -> {
			seen.add(Transactions.isRollbackOnly());
			try {
				this.transactions.executeWithoutResult((inner) -> {
					throw new IllegalStateException("failed");
				});
			}
			catch (IllegalStateException ex) {
				// As a caller that catches a repository's failure to retry it.
			}
			seen.add(Transactions.isRollbackOnly());
			outer.setRollbackOnly();
		});
		seen.add(Transactions.isRollbackOnly());
		assertThat(seen).containsExactly(false, false, true, false);
	}

}
