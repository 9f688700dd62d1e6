package dev.backoff.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import dev.backoff.Backoff;
import dev.backoff.RecordingSleeper;
import dev.backoff.spring.aop.BackoffInterceptor;
import org.junit.jupiter.api.Test;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.TransactionInterceptor;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests that {@code @Backoff} wraps {@code @Transactional}: every attempt runs in a
 * transaction of its own, so a failed attempt rolls back and the successful one commits.
 */
class BackoffTransactionTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class))
		.withUserConfiguration(JdbcConfiguration.class);

	@Test
	void failedAttemptsRollBackAndTheSuccessfulOneCommits() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			orders.failFirst(2);
			assertThat(orders.place("book")).isEqualTo(3);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			assertThat(jdbc.queryForList("select attempt from orders", Integer.class)).containsExactly(3);
		});
	}

	@Test
	void everyAttemptRunsInATransactionOfItsOwn() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			orders.failFirst(2);
			orders.place("book");
			assertThat(orders.activeTransactions()).containsExactly(true, true, true);
			assertThat(orders.transactionNames()).containsOnly(OrderService.class.getName() + ".place");
			assertThat(orders.completions()).containsExactly(TransactionSynchronization.STATUS_ROLLED_BACK,
					TransactionSynchronization.STATUS_ROLLED_BACK, TransactionSynchronization.STATUS_COMMITTED);
			assertThat(orders.connections()).hasSize(3).doesNotHaveDuplicates();
		});
	}

	@Test
	void everyAttemptRollsBackWhenAttemptsRunOut() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			orders.failFirst(100);
			assertThatIllegalStateException().isThrownBy(() -> orders.place("book")).withMessage("attempt 3 failed");
			assertThat(orders.completions()).containsExactly(TransactionSynchronization.STATUS_ROLLED_BACK,
					TransactionSynchronization.STATUS_ROLLED_BACK, TransactionSynchronization.STATUS_ROLLED_BACK);
			assertThat(context.getBean(JdbcTemplate.class).queryForObject("select count(*) from orders", Integer.class))
				.isZero();
		});
	}

	@Test
	void backoffAdvisorComesBeforeTheTransactionAdvisor() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThat(AopUtils.isAopProxy(orders)).isTrue();
			Advisor[] advisors = ((Advised) orders).getAdvisors();
			assertThat(advisors).extracting(Advisor::getAdvice)
				.hasSize(2)
				.hasExactlyElementsOfTypes(BackoffInterceptor.class, TransactionInterceptor.class);
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class JdbcConfiguration {

		@Bean(destroyMethod = "shutdown")
		EmbeddedDatabase dataSource() {
			return new EmbeddedDatabaseBuilder().generateUniqueName(true)
				.setType(EmbeddedDatabaseType.H2)
				.addScript("classpath:dev/backoff/autoconfigure/orders.sql")
				.build();
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		JdbcTemplate jdbcTemplate(DataSource dataSource) {
			return new JdbcTemplate(dataSource);
		}

		@Bean
		RecordingSleeper recordingSleeper() {
			return new RecordingSleeper();
		}

		@Bean
		OrderService orderService(JdbcTemplate jdbcTemplate, DataSource dataSource) {
			return new OrderService(jdbcTemplate, dataSource);
		}

	}

	static class OrderService {

		private final JdbcTemplate jdbc;

		private final DataSource dataSource;

		private final AtomicInteger attempts = new AtomicInteger();

		private final List<Boolean> activeTransactions = new CopyOnWriteArrayList<>();

		private final List<String> transactionNames = new CopyOnWriteArrayList<>();

		private final List<Integer> completions = new CopyOnWriteArrayList<>();

		private final List<Object> connections = new CopyOnWriteArrayList<>();

		private volatile int failFirst;

		OrderService(JdbcTemplate jdbc, DataSource dataSource) {
			this.jdbc = jdbc;
			this.dataSource = dataSource;
		}

		public void failFirst(int failFirst) {
			this.failFirst = failFirst;
		}

		@Backoff(maxAttempts = "3")
		@Transactional
		public int place(String item) {
			int attempt = this.attempts.incrementAndGet();
			this.activeTransactions.add(TransactionSynchronizationManager.isActualTransactionActive());
			this.transactionNames.add(TransactionSynchronizationManager.getCurrentTransactionName());
			this.connections.add(TransactionSynchronizationManager.getResource(this.dataSource));
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCompletion(int status) {
					OrderService.this.completions.add(status);
				}

			});
			this.jdbc.update("insert into orders (item, attempt) values (?, ?)", item, attempt);
			if (attempt <= this.failFirst) {
				throw new IllegalStateException("attempt " + attempt + " failed");
			}
			return attempt;
		}

		public List<Boolean> activeTransactions() {
			return this.activeTransactions;
		}

		public List<String> transactionNames() {
			return this.transactionNames;
		}

		public List<Integer> completions() {
			return this.completions;
		}

		public List<Object> connections() {
			return this.connections;
		}

	}

}
