package dev.backoff.autoconfigure;

import dev.backoff.Backoff;
import dev.backoff.autoconfigure.actuate.BackoffEndpoint;
import dev.backoff.autoconfigure.actuate.BackoffEndpointAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code retryOnException} / {@code retry-on-exception} under Spring Boot: an expression that
 * does not parse or names a missing bean is reported by the failure analyzer, and the endpoint
 * shows the expression. What the expression does to calls is tested in backoff-spring.
 */
class BackoffRetryOnExceptionTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffEndpointAutoConfiguration.class))
		.withPropertyValues("management.endpoints.web.exposure.include=backoff", "backoff.policies.codes.max-attempts=3");

	@Test
	void anExpressionThatDoesNotParseStopsStartUp() {
		this.runner.withPropertyValues("backoff.policies.codes.retry-on-exception=#exception.code ==")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis.getDescription())
					.contains("Property: backoff.policies.codes.retry-on-exception")
					.contains("Rule:     must be a SpEL expression");
			});
		this.runner.withBean(BadExpression.class).run((context) -> {
			FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("Property: @Backoff(retryOnException) on BadExpression.call");
		});
	}

	@Test
	void anExpressionNamingABeanThatDoesNotExistStopsStartUp() {
		this.runner.withBean(UnknownBean.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("Property: @Backoff(retryOnException) on UnknownBean.call")
				.contains("Value:    @transientErrorz.test(#exception)")
				.contains("Rule:     refers to the bean 'transientErrorz', which does not exist");
		});
		this.runner.withPropertyValues("backoff.policies.codes.retry-on-exception=@'transient.errorz'.test(#exception)")
			.run((context) -> {
				FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis.getDescription())
					.contains("Property: backoff.policies.codes.retry-on-exception")
					.contains("Rule:     refers to the bean 'transient.errorz', which does not exist");
			});
	}

	@Test
	void theEndpointShowsTheExpression() {
		this.runner.withPropertyValues("backoff.policies.codes.retry-on-exception=#exception.code == 'INVALID'")
			.withBean(CodedClient.class)
			.run((context) -> {
				BackoffEndpoint.PolicyDescriptor codes = context.getBean(BackoffEndpoint.class)
					.policies()
					.policies()
					.get("codes");
				assertThat(codes.settings().get("retryOnException")).isEqualTo("#exception.code == 'INVALID'");
				assertThat(codes.methods().get("CodedClient.namedOverridden").settings().get("retryOnException"))
					.isEqualTo("#exception.code == 'THROTTLED'");
			});
	}

	static class CodedClient {

		@Backoff(value = "codes", retryOnException = "#exception.code == 'THROTTLED'")
		public String namedOverridden() {
			return "ok";
		}

	}

	static class UnknownBean {

		@Backoff(retryOnException = "@transientErrorz.test(#exception)")
		public String call() {
			return "ok";
		}

	}

	static class BadExpression {

		@Backoff(retryOnException = "#exception ==")
		public String call() {
			return "ok";
		}

	}

}
