package dev.backoff.autoconfigure.data;

import java.util.Optional;

import dev.backoff.Backoff;
import dev.backoff.Sleeper;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.BackoffFailureAnalyzer;
import dev.backoff.autoconfigure.actuate.BackoffEndpoint;
import dev.backoff.autoconfigure.actuate.BackoffEndpointAutoConfiguration;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan.Filter;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.FilterType;
import org.springframework.context.annotation.Import;
import org.springframework.data.annotation.Id;
import org.springframework.data.jdbc.repository.config.AbstractJdbcConfiguration;
import org.springframework.data.jdbc.repository.config.EnableJdbcRepositories;
import org.springframework.data.relational.core.mapping.Table;
import org.springframework.data.repository.CrudRepository;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcOperations;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @Backoff} on the methods of a Spring Data repository, an interface behind a JDK proxy:
 * resolved and checked at start-up like any bean's methods, listed by the endpoint before any
 * call, and named by the repository interface, as Spring Data's own meters name it.
 */
class RepositoryMethodsTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffEndpointAutoConfiguration.class,
				MetricsAutoConfiguration.class, BackoffMetricsAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withBean(Sleeper.class, () -> (delay) -> {
		})
		.withPropertyValues("management.endpoints.web.exposure.include=backoff", "backoff.policies.owners.max-attempts=2");

	@Test
	void repositoryMethodsAreListedBeforeTheirFirstCallAndNamedByTheRepositoryInterface() {
		this.contextRunner.withUserConfiguration(OwnerRepositories.class).run((context) -> {
			assertThat(context).hasNotFailed();
			BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
			assertThat(endpoint.policies().policies().get("owners").methods()).containsOnlyKeys("OwnerRepository.findById",
					"OwnerRepository.findByName");
			OwnerRepository owners = context.getBean(OwnerRepository.class);
			assertThat(owners.findById(1)).map(Owner::name).contains("Franklin");
			assertThat(owners.findByName("Franklin")).map(Owner::id).contains(1);
			assertThat(endpoint.policies().policies().get("owners").methods()).containsOnlyKeys("OwnerRepository.findById",
					"OwnerRepository.findByName");
			assertThat(endpoint.policies().policies().get("owners").methods().get("OwnerRepository.findById").calls())
				.containsEntry("success", 1L);
			assertThat(context.getBean(SimpleMeterRegistry.class).getMeters()).map(Meter::getId)
				.filteredOn((id) -> id.getName().equals("backoff.calls"))
				.extracting((id) -> id.getTag("method"))
				.containsOnly("OwnerRepository.findById", "OwnerRepository.findByName");
		});
	}

	@Test
	void aPolicyNameTypoOnARepositoryMethodStopsStartUpNamingTheInterfaceMethod() {
		this.contextRunner.withUserConfiguration(MisnamedRepositories.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("Property: @Backoff(value) on MisnamedRepository.findById")
				.contains("Value:    ownrs")
				.contains("must name a policy under backoff.policies (configured: owners)");
			assertThat(analysis.getAction()).contains("backoff.policies.ownrs");
		});
	}

	@Table("OWNER")
	public record Owner(@Id Integer id, String name) {
	}

	interface OwnerRepository extends CrudRepository<Owner, Integer> {

		@Override
		@Backoff("owners")
		Optional<Owner> findById(Integer id);

		@Backoff("owners")
		Optional<Owner> findByName(String name);

	}

	interface MisnamedRepository extends CrudRepository<Owner, Integer> {

		@Override
		@Backoff("ownrs")
		Optional<Owner> findById(Integer id);

	}

	@Configuration(proxyBeanMethods = false)
	@EnableJdbcRepositories(considerNestedRepositories = true,
			includeFilters = @Filter(type = FilterType.ASSIGNABLE_TYPE, classes = OwnerRepository.class))
	@Import(Jdbc.class)
	static class OwnerRepositories {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableJdbcRepositories(considerNestedRepositories = true,
			includeFilters = @Filter(type = FilterType.ASSIGNABLE_TYPE, classes = MisnamedRepository.class))
	@Import(Jdbc.class)
	static class MisnamedRepositories {

	}

	/** Spring Data JDBC over an embedded H2 database. */
	@Configuration(proxyBeanMethods = false)
	public static class Jdbc extends AbstractJdbcConfiguration {

		@Bean(destroyMethod = "shutdown")
		EmbeddedDatabase dataSource() {
			return new EmbeddedDatabaseBuilder().generateUniqueName(true)
				.setType(EmbeddedDatabaseType.H2)
				.addScript("classpath:dev/backoff/autoconfigure/data/owners.sql")
				.build();
		}

		@Bean
		NamedParameterJdbcOperations namedParameterJdbcOperations(EmbeddedDatabase dataSource) {
			return new NamedParameterJdbcTemplate(dataSource);
		}

		@Bean
		PlatformTransactionManager transactionManager(EmbeddedDatabase dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

	}

}
