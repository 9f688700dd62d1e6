package dev.backoff.spring.data;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.backoff.Backoff;
import dev.backoff.Sleeper;
import dev.backoff.spring.EnableBackoff;
import dev.backoff.spring.config.BackoffConfigurationException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code retry-on-data-access: transient}: a policy retries the transient failures of JDBC and
 * JPA, named by the cause that matched, and not the others. Real failures of an embedded H2
 * behind a one-connection Hikari pool where they can be made (a pool time-out, a duplicate key);
 * constructed chains for the rest.
 */
class DataAccessFailuresTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withUserConfiguration(Application.class)
		.withPropertyValues("backoff.policies.db.max-attempts=3", "backoff.policies.db.retry-on-data-access=transient");

	@Test
	void aPoolTimeOutIsRetriedAndTaggedByTheCauseThatMatched() {
		this.contextRunner.run((context) -> {
			HikariDataSource pool = context.getBean(HikariDataSource.class);
			Connection held = pool.getConnection();
			// The wait before the retry gives the pool's one connection back.
			context.getBean(ReleasingSleeper.class).release = held::close;
			assertThat(context.getBean(Owners.class).count()).isEqualTo(1);
			assertThat(context.getBean(ReleasingSleeper.class).sleeps).hasSize(1);
			SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
			assertThat(registry.get("backoff.retries").tag("exception", "SQLTransientConnectionException").counter().count())
				.isEqualTo(1);
			assertThat(calls(context, "count", "success_after_retry")).isEqualTo(1);
		});
	}

	@Test
	void aPoolTimeOutIsNotRetriedByTheUsualRetryOnIdiom() {
		// Why the setting exists: CannotCreateTransactionException is no TransientDataAccessException.
		this.contextRunner
			.withPropertyValues("backoff.policies.db.retry-on-data-access=any",
					"backoff.policies.db.retry-on=org.springframework.dao.TransientDataAccessException")
			.run((context) -> {
				try (Connection held = context.getBean(HikariDataSource.class).getConnection()) {
					assertThatExceptionOfType(CannotCreateTransactionException.class)
						.isThrownBy(() -> context.getBean(Owners.class).count())
						.withCauseInstanceOf(SQLTransientConnectionException.class);
				}
				assertThat(calls(context, "count", "not_retryable")).isEqualTo(1);
			});
	}

	@Test
	void theClassificationBesideARetryOnThatReplacesItStopsStartUp() {
		this.contextRunner
			.withPropertyValues("backoff.policies.db.retry-on=org.springframework.dao.TransientDataAccessException")
			.run((context) -> {
				assertThat(context).hasFailed();
				Throwable failure = context.getStartupFailure();
				while (failure != null && !(failure instanceof BackoffConfigurationException)) {
					failure = failure.getCause();
				}
				assertThat(failure).isInstanceOf(BackoffConfigurationException.class)
					.hasMessageStartingWith("backoff.policies.db.retry-on-data-access was 'transient', but must not be "
							+ "set where backoff.policies.db.retry-on is: it replaces the default classification that "
							+ "retry-on-data-access is part of, so it would never apply.");
			});
		// Inherited, it leaves a policy's own retry-on alone.
		this.contextRunner.withPropertyValues("backoff.policies.db.retry-on-data-access=",
				"backoff.defaults.retry-on-data-access=transient", "backoff.policies.db.retry-on=java.io.IOException")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aDuplicateKeyIsNotRetriedThoughEveryOtherExceptionIs() {
		this.contextRunner.run((context) -> {
			assertThatExceptionOfType(DuplicateKeyException.class)
				.isThrownBy(() -> context.getBean(Owners.class).insert(1));
			assertThat(context.getBean(ReleasingSleeper.class).sleeps).isEmpty();
			assertThat(calls(context, "insert", "not_retryable")).isEqualTo(1);
		});
		this.contextRunner.withPropertyValues("backoff.policies.db.retry-on-data-access=any").run((context) -> {
			assertThatExceptionOfType(DuplicateKeyException.class)
				.isThrownBy(() -> context.getBean(Owners.class).insert(1));
			assertThat(calls(context, "insert", "exhausted")).isEqualTo(1);
		});
	}

	@Test
	void transientFailuresAlongTheCauseChain() {
		Predicate<Throwable> retryable = DataAccessFailures.retryable((failure) -> true);
		SQLException serialization = new SQLException("could not serialize access", "40001");
		SQLException deadlock = new SQLException("deadlock detected", "40P01");
		UncategorizedSQLException wrapped = new UncategorizedSQLException("update", "update owner", serialization);
		assertThat(retryable).accepts(wrapped, new UncategorizedSQLException("update", "update owner", deadlock),
				new SQLRecoverableException("connection lost"),
				new CannotCreateTransactionException("no connection", new SQLTransientConnectionException("timeout")),
				new org.springframework.dao.CannotAcquireLockException("lock"),
				new org.springframework.dao.RecoverableDataAccessException("recovered"), new IllegalStateException("other"));
		assertThat(retryable).rejects(new SQLException("syntax", "42000"),
				new CannotCreateTransactionException("no driver"),
				new org.springframework.dao.DataIntegrityViolationException("constraint"), new AssertionError("error"));
		assertThat(DataAccessFailures.transientCause(wrapped)).isSameAs(serialization);
		assertThat(DataAccessFailures.retryable((failure) -> false)).rejects(new IllegalStateException("other"));
	}

	private static double calls(AssertableApplicationContext context, String method, String outcome) {
		return context.getBean(SimpleMeterRegistry.class)
			.get("backoff.calls")
			.tag("method", "Owners." + method)
			.tag("outcome", outcome)
			.counter()
			.count();
	}

	static class Owners {

		private final JdbcTemplate jdbc;

		Owners(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Backoff("db")
		@Transactional
		public int count() {
			return this.jdbc.queryForObject("select count(*) from owner", Integer.class);
		}

		@Backoff("db")
		@Transactional
		public void insert(int id) {
			this.jdbc.update("insert into owner (id, name) values (?, 'Again')", id);
		}

	}

	static class ReleasingSleeper implements Sleeper {

		final List<Duration> sleeps = new CopyOnWriteArrayList<>();

		volatile AutoCloseable release = () -> {
		};

		@Override
		public void sleep(Duration delay) {
			this.sleeps.add(delay);
			try {
				this.release.close();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableBackoff
	@EnableTransactionManagement
	static class Application {

		@Bean(destroyMethod = "close")
		HikariDataSource dataSource() {
			HikariDataSource pool = new HikariDataSource();
			pool.setJdbcUrl("jdbc:h2:mem:" + System.identityHashCode(pool) + ";DB_CLOSE_DELAY=-1");
			pool.setMaximumPoolSize(1);
			// Hikari's shortest: a call waits this long for the held connection before it fails.
			pool.setConnectionTimeout(250);
			new JdbcTemplate(pool).execute("create table owner (id int primary key, name varchar(50));"
					+ "insert into owner values (1, 'Franklin')");
			return pool;
		}

		@Bean
		JdbcTemplate jdbcTemplate(DataSource dataSource) {
			return new JdbcTemplate(dataSource);
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		Owners owners(JdbcTemplate jdbc) {
			return new Owners(jdbc);
		}

		@Bean
		ReleasingSleeper sleeper() {
			return new ReleasingSleeper();
		}

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

}
