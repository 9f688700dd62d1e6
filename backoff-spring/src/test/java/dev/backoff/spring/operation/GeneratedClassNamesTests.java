package dev.backoff.spring.operation;

import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.RecordingSleeper;
import dev.backoff.spring.EnableBackoff;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.Advised;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code method} tag, and every name built on it, is the type the user wrote, never a
 * generated class: a JDK proxy of an interface (as a Spring Data repository is), a CGLIB
 * subclass, a lambda. A generated name changes with unrelated beans and versions.
 */
class GeneratedClassNamesTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withUserConfiguration(Application.class)
		.withPropertyValues("backoff.defaults.max-attempts=2");

	@Test
	void theMethodsOfAJdkProxyACglibSubclassAndALambdaAreNamedByTheTypesTheUserWrote() {
		this.contextRunner.run((context) -> {
			// Resolved at start-up, before any call: the JDK proxy's too.
			assertThat(context.getBean(BackoffOperationSource.class).getAll()).extracting(BackoffOperation::getMethodTag)
				.containsExactlyInAnyOrder("Lookup.find", "Counting.count", "Greeter.greet");
			Lookup lookup = context.getBean(Lookup.class);
			Greeter greeter = context.getBean(Greeter.class);
			Counting counting = context.getBean(Counting.class);
			assertThat(context.getBean("lookup").getClass().getName()).contains("$Proxy");
			assertThat(((Advised) counting).getTargetSource().getTarget().getClass().getName()).contains("$$");
			assertThat(lookup.find("a")).isEqualTo("found a");
			assertThat(greeter.greet()).isEqualTo("hello");
			assertThat(counting.count()).isEqualTo(2);
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).hasSize(3);
			assertThat(context.getBean(BackoffOperationSource.class).getAll()).extracting(BackoffOperation::getMethodTag)
				.containsExactlyInAnyOrder("Lookup.find", "Counting.count", "Greeter.greet");
			assertThat(context.getBean(SimpleMeterRegistry.class).getMeters()).map(Meter::getId)
				.filteredOn((id) -> id.getName().equals("backoff.calls"))
				.extracting((id) -> id.getTag("method"))
				.containsOnly("Lookup.find", "Counting.count", "Greeter.greet")
				.noneMatch((tag) -> tag.contains("$"));
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableBackoff
	@Import(Counting.class)
	static class Application {

		@Bean
		RecordingSleeper sleeper() {
			return new RecordingSleeper();
		}

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		/** A JDK proxy made by a factory, as Spring Data makes a repository. */
		@Bean
		Lookup lookup() {
			AtomicInteger calls = new AtomicInteger();
			return (Lookup) Proxy.newProxyInstance(Lookup.class.getClassLoader(), new Class<?>[] { Lookup.class },
					(proxy, method, args) -> {
						if (method.getDeclaringClass() == Object.class) {
							return method.invoke(calls, args);
						}
						if (calls.incrementAndGet() == 1) {
							throw new IllegalStateException("first");
						}
						return "found " + args[0];
					});
		}

		@Bean
		Greeter greeter() {
			AtomicInteger calls = new AtomicInteger();
			return () -> {
				if (calls.incrementAndGet() == 1) {
					throw new IllegalStateException("first");
				}
				return "hello";
			};
		}

	}

	/** As {@code CrudRepository} declares {@code findById}. */
	interface Finder {

		@Backoff
		String find(String key);

	}

	/** As a repository interface inherits it: the method is named by the interface the bean is. */
	interface Lookup extends Finder {

	}

	interface Greeter {

		@Backoff
		String greet();

	}

	/** Its bean is a CGLIB subclass, as an imported {@code @Configuration} class's is. */
	@Configuration
	static class Counting {

		private final AtomicInteger calls = new AtomicInteger();

		@Backoff
		public int count() {
			if (this.calls.incrementAndGet() == 1) {
				throw new IllegalStateException("first");
			}
			return this.calls.get();
		}

	}

}
