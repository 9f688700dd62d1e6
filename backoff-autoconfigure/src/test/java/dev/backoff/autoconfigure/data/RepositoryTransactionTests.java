package dev.backoff.autoconfigure.data;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.backoff.Backoff;
import dev.backoff.Sleeper;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.data.RepositoryMethodsTests.Jdbc;
import dev.backoff.autoconfigure.data.RepositoryMethodsTests.Owner;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan.Filter;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.FilterType;
import org.springframework.context.annotation.Import;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.jdbc.repository.config.EnableJdbcRepositories;
import org.springframework.data.repository.CrudRepository;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A {@code @Backoff} repository method called inside its caller's transaction: its first
 * failure (a real lock time-out of H2, another connection holding the row, which Spring reads as
 * a {@code QueryTimeoutException}) marks that transaction rollback-only, so a retry inside it
 * could only end in {@code UnexpectedRollbackException}. The call ends with its failure instead,
 * and a WARN says to retry around the transaction. Called outside a transaction, it retries.
 */
@ExtendWith(OutputCaptureExtension.class)
class RepositoryTransactionTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, MetricsAutoConfiguration.class,
				BackoffMetricsAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withUserConfiguration(Application.class)
		.withPropertyValues("backoff.policies.owners.max-attempts=3");

	@Test
	void aRetryInsideTheCallersTransactionMarkedRollbackOnlyIsNotMade(CapturedOutput output) {
		this.contextRunner.run((context) -> withRowLocked(context, () -> {
			OwnerService service = context.getBean(OwnerService.class);
			assertThatExceptionOfType(QueryTimeoutException.class)
				.isThrownBy(() -> service.renameInTransaction(1, "Frank"));
			assertThat(context.getBean(LockReleasingSleeper.class).sleeps).isEmpty();
			assertThat(calls(context, "not_retryable")).isEqualTo(1);
			// As docs/annotation.md ("Transactions") shows it.
			assertThat(output).containsOnlyOnce("@Backoff(owners) OwnerRepository.save: not retried, and no later call "
					+ "will be while its caller's transaction is marked rollback-only: a retry inside that transaction "
					+ "cannot commit, and the caller would get UnexpectedRollbackException. Retry around the transaction "
					+ "instead: put @Backoff on the @Transactional method that calls this one, or call it outside a "
					+ "transaction.");
		}));
	}

	@Test
	void outsideATransactionTheSameFailureIsRetried() {
		this.contextRunner.run((context) -> withRowLocked(context, () -> {
			OwnerRepository owners = context.getBean(OwnerRepository.class);
			assertThat(owners.save(new Owner(1, "Frank")).name()).isEqualTo("Frank");
			assertThat(context.getBean(LockReleasingSleeper.class).sleeps).hasSize(1);
			assertThat(calls(context, "success_after_retry")).isEqualTo(1);
		}));
	}

	private static double calls(AssertableApplicationContext context, String outcome) {
		return context.getBean(SimpleMeterRegistry.class)
			.get("backoff.calls")
			.tag("method", "OwnerRepository.save")
			.tag("outcome", outcome)
			.counter()
			.count();
	}

	/** Another connection updates the row and holds its lock until the first wait before a retry. */
	private static void withRowLocked(AssertableApplicationContext context, Runnable test) throws SQLException {
		try (Connection holder = context.getBean(EmbeddedDatabase.class).getConnection()) {
			holder.setAutoCommit(false);
			try (Statement statement = holder.createStatement()) {
				statement.executeUpdate("update owner set name = 'Held' where id = 1");
			}
			context.getBean(LockReleasingSleeper.class).release = () -> {
				try {
					holder.rollback();
				}
				catch (SQLException ex) {
					throw new IllegalStateException(ex);
				}
			};
			test.run();
		}
	}

	interface OwnerRepository extends CrudRepository<Owner, Integer> {

		@Override
		@Backoff("owners")
		<S extends Owner> S save(S owner);

	}

	static class OwnerService {

		private final OwnerRepository owners;

		OwnerService(OwnerRepository owners) {
			this.owners = owners;
		}

		@Transactional
		public Owner renameInTransaction(int id, String name) {
			return this.owners.save(new Owner(id, name));
		}

	}

	static class LockReleasingSleeper implements Sleeper {

		final List<Duration> sleeps = new CopyOnWriteArrayList<>();

		volatile Runnable release = () -> {
		};

		@Override
		public void sleep(Duration delay) {
			this.sleeps.add(delay);
			this.release.run();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableJdbcRepositories(considerNestedRepositories = true,
			includeFilters = @Filter(type = FilterType.ASSIGNABLE_TYPE, classes = OwnerRepository.class))
	@EnableTransactionManagement
	@Import(Jdbc.class)
	static class Application {

		@Bean
		OwnerService ownerService(OwnerRepository owners) {
			return new OwnerService(owners);
		}

		@Bean
		LockReleasingSleeper sleeper() {
			return new LockReleasingSleeper();
		}

	}

}
