package dev.backoff.spring.metrics;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import dev.backoff.Backoff;
import dev.backoff.spring.CountingSleeper;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.operation.ExceptionTags;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The {@code exception} tag of {@code backoff.retries} stays bounded however many exception
 * classes a method throws, and is never empty.
 */
class ExceptionTagTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class)
		.withBean(CountingSleeper.class)
		.withBean(Thrower.class)
		.withPropertyValues("backoff.defaults.max-attempts=2");

	@Test
	void fiveHundredGeneratedExceptionClassesMakeAtMostTheLimitPlusOneSeries() throws IOException {
		Supplier<RuntimeException> generated = generatedExceptionClasses();
		this.runner.run((context) -> {
			Thrower thrower = context.getBean(Thrower.class);
			for (int i = 0; i < 500; i++) {
				// Each call fails twice with instances of a new class: one retry per call.
				thrower.script(generated.get(), generated.get());
				assertThat(catchThrowable(thrower::call)).isInstanceOf(RuntimeException.class);
			}
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			Set<String> tags = meters.find("backoff.retries")
				.counters()
				.stream()
				.map((counter) -> counter.getId().getTag("exception"))
				.collect(Collectors.toSet());
			assertThat(tags).hasSize(ExceptionTags.LIMIT + 1)
				.contains(ExceptionTags.OTHER, "ExceptionTagTests$G00000001")
				.allSatisfy((tag) -> assertThat(tag).isNotEmpty().doesNotContain("/"));
			assertThat(meters.find("backoff.retries").counters().stream().mapToDouble(Counter::count).sum())
				.isEqualTo(500);
			assertThat(meters.get("backoff.retries").tag("exception", ExceptionTags.OTHER).counter().count())
				.isEqualTo(500 - ExceptionTags.LIMIT);
		});
	}

	@Test
	void anAnonymousExceptionClassGetsANameRatherThanAnEmptyTag() {
		this.runner.run((context) -> {
			Thrower thrower = context.getBean(Thrower.class);
			thrower.script(new IllegalStateException("anonymous") {
			}, new IllegalStateException("second"));
			catchThrowable(thrower::call);
			assertThat(context.getBean(MeterRegistry.class).find("backoff.retries").counters())
				.singleElement()
				.satisfies((counter) -> assertThat(counter.getId().getTag("exception"))
					.isEqualTo("ExceptionTagTests$1"));
		});
	}

	/**
	 * Defines a new exception class on every call, named {@code G00000001}, {@code G00000002}...:
	 * the bytes of {@link Generated} with its name replaced by one of the same length, defined
	 * as a hidden class so that nothing else holds it.
	 */
	private static Supplier<RuntimeException> generatedExceptionClasses() throws IOException {
		byte[] template;
		try (InputStream in = ExceptionTagTests.class.getResourceAsStream("ExceptionTagTests$Generated.class")) {
			template = in.readAllBytes();
		}
		String latin1 = new String(template, StandardCharsets.ISO_8859_1);
		AtomicInteger count = new AtomicInteger();
		return () -> {
			String name = String.format("G%08d", count.incrementAndGet());
			byte[] bytes = latin1.replace("Generated", name).getBytes(StandardCharsets.ISO_8859_1);
			try {
				MethodHandles.Lookup hidden = MethodHandles.lookup().defineHiddenClass(bytes, false);
				return (RuntimeException) hidden
					.findConstructor(hidden.lookupClass(), MethodType.methodType(void.class))
					.invoke();
			}
			catch (Throwable ex) {
				throw new IllegalStateException(ex);
			}
		};
	}

	static class Generated extends RuntimeException {

		Generated() {
			super("generated");
		}

	}

	static class Thrower {

		private final Queue<RuntimeException> script = new ConcurrentLinkedQueue<>();

		void script(RuntimeException... failures) {
			this.script.clear();
			this.script.addAll(java.util.List.of(failures));
		}

		@Backoff
		public String call() {
			RuntimeException next = this.script.poll();
			if (next != null) {
				throw next;
			}
			return "done";
		}

	}

}
