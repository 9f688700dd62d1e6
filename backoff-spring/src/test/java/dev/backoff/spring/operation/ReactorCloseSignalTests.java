package dev.backoff.spring.operation;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.spring.BackoffConfiguration;
import dev.backoff.spring.EnableBackoff;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code Mono} call listens for the scheduler's close only while it waits, and leaves
 * nothing registered once it has ended: each call used to add a dependent to a future that
 * completed only at close, 128 B per call held until then.
 */
class ReactorCloseSignalTests {

	@Test
	void aWaitListensForTheCloseOnlyWhileItWaits() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Application.class)) {
			Flaky flaky = context.getBean(Flaky.class);
			BackoffScheduler scheduler = context.getBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, BackoffScheduler.class);
			for (int i = 0; i < 10; i++) {
				StepVerifier.withVirtualTime(flaky::quote)
					.expectSubscription()
					.then(() -> assertThat(scheduler.getCloseActionCount()).isOne())
					.thenAwait(Duration.ofSeconds(1))
					.expectNext("quote")
					.verifyComplete();
			}
			assertThat(scheduler.getCloseActionCount()).isZero();
			assertThat(flaky.calls()).isEqualTo(20);
		}
	}

	@Test
	void aCallThatNeedsNoWaitRegistersNothing() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Application.class)) {
			BackoffScheduler scheduler = context.getBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, BackoffScheduler.class);
			for (int i = 0; i < 10; i++) {
				StepVerifier.create(context.getBean(Flaky.class).steady()).expectNext("steady").verifyComplete();
			}
			assertThat(scheduler.getCloseActionCount()).isZero();
		}
	}

	@Test
	void closingEndsAWaitingCallWithItsFailure() {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Application.class);
		BackoffScheduler scheduler = context.getBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, BackoffScheduler.class);
		StepVerifier.withVirtualTime(context.getBean(Flaky.class)::quote)
			.expectSubscription()
			.then(context::close)
			.expectErrorMessage("first attempt fails")
			.verify(Duration.ofSeconds(5));
		assertThat(scheduler.getCloseActionCount()).isZero();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableBackoff
	static class Application {

		@Bean
		Flaky flaky() {
			return new Flaky();
		}

	}

	static class Flaky {

		private final AtomicInteger calls = new AtomicInteger();

		/** Fails every odd attempt, so that each call waits once. */
		@Backoff(maxAttempts = "2", baseDelay = "500ms", maxDelay = "500ms")
		public Mono<String> quote() {
			return Mono.defer(() -> (this.calls.incrementAndGet() % 2 == 1)
					? Mono.error(new IllegalStateException("first attempt fails")) : Mono.just("quote"));
		}

		@Backoff(maxAttempts = "2")
		public Mono<String> steady() {
			return Mono.just("steady");
		}

		public int calls() {
			return this.calls.get();
		}

	}

}
