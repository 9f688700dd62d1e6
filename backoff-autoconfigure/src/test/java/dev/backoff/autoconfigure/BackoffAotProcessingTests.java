package dev.backoff.autoconfigure;

import dev.backoff.Backoff;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * AOT processing asks which beans are proxied before any configuration property is bound:
 * the answer must come from the annotations alone, and the policies must not be resolved then.
 */
class BackoffAotProcessingTests {

	@Test
	void aotProcessingPredictsTheProxyOfABeanNamingAPolicyWithoutResolvingIt() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(QuotesConfiguration.class);
			TestPropertyValues.of("backoff.policies.quotes.max-attempts=4").applyTo(context);
			RuntimeHints hints = new RuntimeHints();
			context.refreshForAotProcessing(hints);
			// AOT registers hints for the proxy class that the post-processor predicted.
			assertThat(hints.reflection().typeHints())
				.anySatisfy((hint) -> assertThat(hint.getType().getName()).startsWith(Quotes.class.getName() + "$$"));
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

		@Backoff("quotes")
		public String fetch() {
			return "quote";
		}

	}

}
