package dev.backoff.autoconfigure.reliability;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.BackoffFailureAnalyzer;
import dev.backoff.autoconfigure.actuate.BackoffEndpoint;
import dev.backoff.autoconfigure.actuate.BackoffEndpoint.PreviewDescriptor;
import dev.backoff.autoconfigure.actuate.BackoffEndpointAutoConfiguration;
import dev.backoff.spring.operation.BackoffOperation;
import dev.backoff.spring.operation.BackoffOperationSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The smaller defects of the second reliability round, one test each: a {@code null}
 * publisher, final classes and methods, unresolved placeholders, a {@code retry-on} that
 * {@code abort-on} covers, the budget of unnamed methods, and the cost of a preview.
 */
@ExtendWith(OutputCaptureExtension.class)
class SmallerDefectsTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class))
		.withBean(CountingSleeper.class)
		.withPropertyValues("backoff.defaults.max-attempts=3");

	@Test
	void aMonoMethodReturningNullFailsItsAttemptsAsACompletableFutureMethodDoes() {
		this.runner.withBean(Nulls.class).run((context) -> {
			Nulls nulls = context.getBean(Nulls.class);
			Throwable mono = catchThrowable(() -> nulls.mono().block());
			Throwable future = catchThrowable(() -> nulls.future().get(10, TimeUnit.SECONDS));
			assertThat(mono).isInstanceOf(IllegalStateException.class).hasMessageContaining("returned null");
			assertThat(future).cause().isInstanceOf(IllegalStateException.class).hasMessageContaining("returned null");
			assertThat(nulls.monoCalls()).isEqualTo(3);
			assertThat(nulls.futureCalls()).isEqualTo(3);
		});
	}

	@Test
	void aRecordWithBackoffStopsStartUpWithAReport() {
		this.runner.withBean(FinalQuote.class, () -> new FinalQuote("q")).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("Property: @Backoff on " + FinalQuote.class.getName())
				.contains("needs a proxy, but the class is final (a record)");
		});
	}

	@Test
	void aFinalBackoffMethodIsReportedAtStartUp(CapturedOutput output) {
		this.runner.withBean(FinalMethod.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("@Backoff method FinalMethod.fetch is final, so the proxy cannot intercept it");
		});
	}

	@Test
	void anUnresolvedPlaceholderStopsStartUpWithAReport() {
		this.runner.withBean(Placeholder.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("Property: @Backoff(maxAttempts) on Placeholder.fetch")
				.contains("Value:    ${quotes.attempts}")
				.contains("must only use placeholders that resolve");
		});
	}

	@Test
	void aRetryOnThatAbortOnCoversStopsStartUp() {
		this.runner
			.withPropertyValues("backoff.policies.quotes.retry-on=java.io.IOException",
					"backoff.policies.quotes.abort-on=java.lang.Exception")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("Property: backoff.policies.quotes.retry-on")
					.contains("must not name a subtype of java.lang.Exception, which abort-on names: it could never "
							+ "be retried");
			});
	}

	@Test
	void unnamedMethodsShareTheDefaultsBudgetAndANamedPolicyHasItsOwn() {
		this.runner.withBean(Budgeted.class)
			.withPropertyValues("backoff.defaults.budget.max-tokens=5", "backoff.policies.quotes.max-attempts=3")
			.run((context) -> {
				BackoffOperationSource source = context.getBean(BackoffOperationSource.class);
				BackoffOperation first = operation(source, "first");
				BackoffOperation second = operation(source, "second");
				BackoffOperation named = operation(source, "named");
				assertThat(first.getBudget()).isNotNull().isSameAs(second.getBudget());
				assertThat(named.getBudget()).isNotNull().isNotSameAs(first.getBudget());
			});
	}

	@Test
	void aPreviewIsSampledOncePerSchedule() {
		this.runner.withConfiguration(AutoConfigurations.of(BackoffEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=backoff",
					"backoff.policies.quotes.max-attempts=10")
			.run((context) -> {
				BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
				assertThat(((PreviewDescriptor) endpoint.preview("quotes").getBody()).schedule()).hasSize(9)
					.isSameAs(((PreviewDescriptor) endpoint.preview("quotes").getBody()).schedule());
			});
	}

	private static BackoffOperation operation(BackoffOperationSource source, String name) throws Exception {
		BackoffOperation operation = source.getOperation(Budgeted.class.getMethod(name), Budgeted.class);
		assertThat(operation).isNotNull();
		return operation;
	}

	static class Nulls {

		private final AtomicInteger monoCalls = new AtomicInteger();

		private final AtomicInteger futureCalls = new AtomicInteger();

		int monoCalls() {
			return this.monoCalls.get();
		}

		int futureCalls() {
			return this.futureCalls.get();
		}

		@Backoff
		public @Nullable Mono<String> mono() {
			this.monoCalls.incrementAndGet();
			return null;
		}

		@Backoff
		public @Nullable CompletableFuture<String> future() {
			this.futureCalls.incrementAndGet();
			return null;
		}

	}

	@Backoff
	record FinalQuote(String id) {

		public String fetch() {
			return this.id;
		}

	}

	static class FinalMethod {

		@Backoff
		public final String fetch() {
			return "quote";
		}

	}

	static class Placeholder {

		@Backoff(maxAttempts = "${quotes.attempts}")
		public String fetch() {
			return "quote";
		}

	}

	static class Budgeted {

		@Backoff
		public String first() {
			return "first";
		}

		@Backoff
		public String second() {
			return "second";
		}

		@Backoff("quotes")
		public String named() {
			return "named";
		}

	}

}
