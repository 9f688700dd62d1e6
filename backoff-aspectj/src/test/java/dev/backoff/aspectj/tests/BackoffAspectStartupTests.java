package dev.backoff.aspectj.tests;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.backoff.Backoff;
import dev.backoff.RecordingSleeper;
import dev.backoff.aspectj.BackoffAspectAutoConfiguration;
import dev.backoff.aspectj.tests.unwoven.UnwovenService;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.BackoffFailureAnalyzer;
import dev.backoff.spring.config.BackoffConfigurationException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code backoff.mode=aspectj} still stops start-up on mistakes, now including the ones of
 * weaving: a {@code @Backoff} that the woven aspect would not reach, a class left out of the
 * weaving, AspectJ missing. Runs with the aspectjweaver agent.
 */
@Tag("aspectj-weaving")
class BackoffAspectStartupTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffAspectAutoConfiguration.class))
		.withPropertyValues("backoff.mode=aspectj")
		.withBean(RecordingSleeper.class);

	@Test
	void failsOnAnUnknownPolicyOfANonPublicMethod() {
		this.runner.withBean(UnknownPolicy.class).run((context) -> {
			assertThat(context).hasFailed();
			BackoffConfigurationException failure = configurationFailure(context.getStartupFailure());
			assertThat(failure.getProperty()).isEqualTo("@Backoff(value) on UnknownPolicy.fetch");
			assertThat(failure.getValue()).isEqualTo("nowhere");
		});
	}

	@Test
	void failsOnABackoffOnlyOnTheInterfaceMethod() {
		this.runner.withBean(InterfaceMethodOnly.class).run((context) -> {
			assertThat(context).hasFailed();
			BackoffConfigurationException failure = configurationFailure(context.getStartupFailure());
			assertThat(failure.getProperty()).isEqualTo("backoff.mode");
			assertThat(failure.getRule()).startsWith("the woven aspect does not reach InterfaceMethodOnly.fetch");
			assertThat(failure.getAction()).startsWith("Put @Backoff on InterfaceMethodOnly.fetch itself");
		});
	}

	@Test
	void failsOnAComposedBackoff() {
		this.runner.withBean(Composed.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(configurationFailure(context.getStartupFailure()).getRule())
				.startsWith("the woven aspect does not reach Composed.fetch");
		});
	}

	@Test
	void failsOnATypeLevelBackoffOverAnInheritedPublicMethod() {
		this.runner.withBean(TypeLevelSubclass.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(configurationFailure(context.getStartupFailure()).getRule())
				.startsWith("the woven aspect does not reach TypeLevelSubclass.inherited");
		});
	}

	@Test
	void acceptsATypeLevelBackoffOnAnInterfaceForTheMethodsItDeclares() {
		this.runner.withBean(TypeLevelInterfaceImpl.class).run((context) -> {
			assertThat(context).hasNotFailed();
			TypeLevelInterfaceImpl bean = context.getBean(TypeLevelInterfaceImpl.class);
			bean.attempts.failNext(2);
			assertThat(bean.fetch()).isEqualTo("ok after 3");
		});
	}

	@Test
	void acceptsATypeLevelBackoffInheritedFromASuperclass() {
		this.runner.withBean(InheritingChild.class).run((context) -> {
			assertThat(context).hasNotFailed();
			InheritingChild bean = context.getBean(InheritingChild.class);
			bean.attempts.failNext(2);
			assertThat(bean.child()).isEqualTo("ok after 3");
			bean.attempts.failNext(2);
			assertThat(bean.parent()).isEqualTo("ok after 3");
		});
	}

	@Test
	void failsOnAClassLeftOutOfTheWeaving() {
		this.runner.withBean(UnwovenService.class).run((context) -> {
			assertThat(context).hasFailed();
			BackoffConfigurationException failure = configurationFailure(context.getStartupFailure());
			assertThat(failure.getRule()).isEqualTo(UnwovenService.class.getName()
					+ ", which declares the @Backoff method UnwovenService.fetch, was not woven by AspectJ, "
					+ "so its calls would not be retried");
			assertThat(failure.getAction())
				.startsWith("Include dev.backoff.aspectj.tests.unwoven in the <weaver> of META-INF/aop.xml");
		});
	}

	@Test
	void failsWithoutAspectJ() {
		this.runner.withClassLoader(new FilteredClassLoader("org.aspectj"))
			.withBean(InterfaceMethodOnly.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				BackoffConfigurationException failure = configurationFailure(context.getStartupFailure());
				assertThat(failure.getRule())
					.isEqualTo("needs AspectJ, and org.aspectj:aspectjweaver is not on the class path");
				FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getAction()).contains("-javaagent:aspectjweaver.jar").endsWith("set backoff.mode=proxy.");
			});
	}

	@Test
	void failsOnAnUnknownMode() {
		this.runner.withPropertyValues("backoff.mode=weave").run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new BackoffFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("Property: backoff.mode")
				.contains("Rule:     must be one of proxy, aspectj");
		});
	}

	private static BackoffConfigurationException configurationFailure(Throwable failure) {
		Throwable current = failure;
		while (current != null && !(current instanceof BackoffConfigurationException)) {
			current = current.getCause();
		}
		assertThat(current).as("BackoffConfigurationException in %s", failure).isNotNull();
		return (BackoffConfigurationException) current;
	}

	static class UnknownPolicy {

		@Backoff("nowhere")
		String fetch() {
			return "ok";
		}

	}

	interface QuoteClient {

		@Backoff
		String fetch();

	}

	static class InterfaceMethodOnly implements QuoteClient {

		@Override
		public String fetch() {
			return "ok";
		}

	}

	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@Backoff(maxAttempts = "5")
	@interface FiveAttempts {

	}

	static class Composed {

		@FiveAttempts
		public String fetch() {
			return "ok";
		}

	}

	static class Base {

		public String inherited() {
			return "ok";
		}

	}

	@Backoff
	static class TypeLevelSubclass extends Base {

		public String own() {
			return "ok";
		}

	}

	@Backoff
	static class AnnotatedParent {

		final Attempts attempts = new Attempts();

		public String parent() {
			return this.attempts.attempt();
		}

	}

	static class InheritingChild extends AnnotatedParent {

		public String child() {
			return this.attempts.attempt();
		}

	}

	@Backoff
	interface TypeLevelClient {

		String fetch();

	}

	static class TypeLevelInterfaceImpl implements TypeLevelClient {

		final Attempts attempts = new Attempts();

		@Override
		public String fetch() {
			return this.attempts.attempt();
		}

	}

}
