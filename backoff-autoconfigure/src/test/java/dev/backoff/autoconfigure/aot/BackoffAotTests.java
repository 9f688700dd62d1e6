package dev.backoff.autoconfigure.aot;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;

import dev.backoff.Backoff;
import dev.backoff.BackoffCall;
import dev.backoff.Jitter;
import dev.backoff.RetryBudget;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.spring.aot.BackoffMethodsAotProcessor;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.javapoet.ClassName;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * AOT processing of a real context: it asks which beans are proxied before any configuration
 * property is bound, so the answer must come from the annotations alone and no policy may be
 * resolved then; and it contributes the runtime hints that a native image needs: the exception classes named in {@code backoff.*}, fallback methods, what
 * {@code retryIf} and {@code retryOnException} read, the {@code VarHandle} fields, and the
 * optional neighbours whose presence Backoff asks at run time.
 */
class BackoffAotTests {

	@Test
	void predictsTheProxyOfABeanNamingAPolicyWithoutResolvingIt() {
		// Before the policies were resolved at bean creation, determineBeanType resolved them
		// here and failed: "@Backoff(value) on Quotes.fetch was 'quotes', but … none is configured".
		RuntimeHints hints = process("backoff.policies.quotes.max-attempts=4");
		assertThat(hints.reflection().typeHints())
			.anySatisfy((hint) -> assertThat(hint.getType().getName()).startsWith(Quotes.class.getName() + "$$"));
	}

	@Test
	void processesEverySupportedShapeOfBackoffMethod() {
		// Named policy, fallback, retryIf on a CompletableFuture, retryOnException, and a Mono with
		// inline attributes and a placeholder: AOT processing resolves no policy, so none fails it.
		RuntimeHints hints = process("backoff.policies.quotes.max-attempts=5");
		assertThat(RuntimeHintsPredicates.reflection().onType(Quotes.class)).accepts(hints);
	}

	@Test
	void registersTheExceptionClassesNamedInTheConfiguration() {
		RuntimeHints hints = process("backoff.defaults.retry-on=java.io.IOException",
				"backoff.policies.quotes.abort-on=java.io.FileNotFoundException, com.example.Missing");
		assertThat(RuntimeHintsPredicates.reflection().onType(IOException.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(java.io.FileNotFoundException.class)).accepts(hints);
		// A missing class is reported at start-up, not hinted.
		assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of("com.example.Missing"))).rejects(hints);
	}

	@Test
	void registersFallbackMethodsForInvocation() {
		// The processor alone: a proxied bean's own methods get hints from Spring's proxy support
		// too, an AspectJ-woven or unproxied one only from here.
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("quotes", new RootBeanDefinition(Quotes.class));
		BeanRegistrationAotContribution contribution = new BackoffMethodsAotProcessor()
			.processAheadOfTime(RegisteredBean.of(beanFactory, "quotes"));
		DefaultGenerationContext generationContext = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get(Quotes.class)), new InMemoryGeneratedFiles());
		assertThat(contribution).isNotNull();
		contribution.applyTo(generationContext, null);
		RuntimeHints hints = generationContext.getRuntimeHints();
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Quotes.class, "cached")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Quotes.class, "fetch")).rejects(hints);
	}

	@Test
	void registersWhatRetryIfAndRetryOnExceptionRead() {
		RuntimeHints hints = process();
		// retryIf on a CompletableFuture<Job>: the Job's public methods.
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Job.class, "status")).accepts(hints);
		// retryOnException on a method that declares Throttled.
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Throttled.class, "getCode")).accepts(hints);
	}

	@Test
	void registersTheVarHandleFieldsAndTheOptionalNeighbours() {
		RuntimeHints hints = process();
		assertThat(RuntimeHintsPredicates.reflection()
			.onFieldAccess(ReflectionUtils.findField(BackoffCall.class, "ended"))).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onFieldAccess(ReflectionUtils.findField(RetryBudget.class, "milliTokens"))).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of("reactor.core.publisher.Mono")))
			.accepts(hints);
	}

	private static RuntimeHints process(String... properties) {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(QuotesConfiguration.class);
			TestPropertyValues.of(properties).applyTo(context);
			DefaultGenerationContext generationContext = new DefaultGenerationContext(
					new ClassNameGenerator(ClassName.get(QuotesConfiguration.class)), new InMemoryGeneratedFiles());
			new ApplicationContextAotGenerator().processAheadOfTime(context, generationContext);
			return generationContext.getRuntimeHints();
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(BackoffAutoConfiguration.class)
	static class QuotesConfiguration {

		@Bean
		Quotes quotes() {
			return new Quotes();
		}

	}

	static class Quotes {

		@Backoff(value = "quotes", fallback = "cached")
		public String fetch(String symbol) {
			return symbol;
		}

		String cached(String symbol, Throwable failure) {
			return symbol;
		}

		@Backoff(retryIf = "#result.status() == 'NOT_READY'")
		public CompletableFuture<Job> poll() {
			return CompletableFuture.completedFuture(new Job("READY"));
		}

		@Backoff(retryOnException = "#exception.code == 'THROTTLED'")
		public String place() throws Throttled {
			return "placed";
		}

		@Backoff(maxAttempts = "${quotes.attempts:4}", baseDelay = "250ms", jitter = Jitter.EQUAL)
		public Mono<String> stream() {
			return Mono.just("quote");
		}

	}

	public record Job(String status) {
	}

	public static class Throttled extends Exception {

		public String getCode() {
			return "THROTTLED";
		}

	}

}
