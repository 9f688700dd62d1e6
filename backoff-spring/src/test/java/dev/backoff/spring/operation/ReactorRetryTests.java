package dev.backoff.spring.operation;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.RecordingSleeper;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.ScriptedFailures;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@code @Backoff} methods that return a Reactor {@link Mono} or {@link Flux}:
 * every attempt invokes the method anew and subscribes to what it returns; waits run on
 * Reactor's (virtual, here) time.
 */
class ReactorRetryTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(RecordingSleeper.class)
		.withBean(ReactiveService.class);

	@Test
	void monoFailsTwiceThenSucceedsAfterThePolicyDelays() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			service.failFirst(2);
			StepVerifier.withVirtualTime(service::mono)
				.expectSubscription()
				.then(() -> assertThat(service.invocations()).isEqualTo(1))
				.thenAwait(Duration.ofMillis(99))
				.then(() -> assertThat(service.invocations()).isEqualTo(1))
				.thenAwait(Duration.ofMillis(1))
				.then(() -> assertThat(service.invocations()).isEqualTo(2))
				.thenAwait(Duration.ofMillis(199))
				.then(() -> assertThat(service.invocations()).isEqualTo(2))
				.thenAwait(Duration.ofMillis(1))
				.expectNext("ok 3")
				.expectComplete()
				.verify(TIMEOUT);
			assertThat(service.subscriptions()).isEqualTo(3);
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).isEmpty();
		});
	}

	@Test
	void monoWithZeroDelaysFailsTwiceThenSucceeds() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			service.failFirst(2);
			StepVerifier.create(service.immediateMono()).expectNext("ok 3").expectComplete().verify(TIMEOUT);
			assertThat(service.invocations()).isEqualTo(3);
			assertThat(service.subscriptions()).isEqualTo(3);
		});
	}

	@Test
	void invokesTheMethodOnlyOnSubscription() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			Mono<String> mono = service.immediateMono();
			assertThat(service.invocations()).isZero();
			StepVerifier.create(mono).expectNext("ok 1").expectComplete().verify(TIMEOUT);
			assertThat(service.invocations()).isEqualTo(1);
		});
	}

	@Test
	void eachSubscriptionIsANewCall() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			service.failFirst(2);
			Mono<String> mono = service.immediateMono();
			StepVerifier.create(mono).expectNext("ok 3").expectComplete().verify(TIMEOUT);
			service.failFirst(5);
			StepVerifier.create(mono).expectNext("ok 6").expectComplete().verify(TIMEOUT);
			assertThat(service.invocations()).isEqualTo(6);
		});
	}

	@Test
	void monoEndsWithTheOriginalErrorWhenAttemptsRunOut() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			service.failFirst(100);
			StepVerifier.create(service.immediateMono())
				.expectErrorSatisfies((failure) -> assertThat(failure).isExactlyInstanceOf(IOException.class)
					.hasMessage("failure 3")
					.isSameAs(service.failures().get(2)))
				.verify(TIMEOUT);
			assertThat(service.invocations()).isEqualTo(3);
		});
	}

	@Test
	void monoEndsWithTheOriginalErrorAfterTheDelaysInVirtualTime() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			service.failFirst(100);
			StepVerifier.withVirtualTime(service::mono)
				.expectSubscription()
				.thenAwait(Duration.ofMillis(300))
				.expectErrorSatisfies((failure) -> assertThat(failure).isSameAs(service.failures().get(2)))
				.verify(TIMEOUT);
			assertThat(service.invocations()).isEqualTo(3);
		});
	}

	@Test
	void monoDoesNotRetryAnError() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			service.failFirst(100);
			service.failWithError();
			StepVerifier.create(service.immediateMono()).expectError(AssertionError.class).verify(TIMEOUT);
			assertThat(service.invocations()).isEqualTo(1);
		});
	}

	@Test
	void monoFromAMethodThatThrowsIsRetried() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			service.failFirst(2);
			StepVerifier.create(service.throwingMono()).expectNext("ok 3").expectComplete().verify(TIMEOUT);
			assertThat(service.invocations()).isEqualTo(3);
		});
	}

	@Test
	void fluxFailsTwiceThenSucceeds() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			service.failFirst(2);
			StepVerifier.create(service.flux()).expectNext("a 3", "b 3").expectComplete().verify(TIMEOUT);
			assertThat(service.invocations()).isEqualTo(3);
			assertThat(service.subscriptions()).isEqualTo(3);
		});
	}

	@Test
	void fluxWaitsThePolicyDelaysInVirtualTime() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			service.failFirst(1);
			StepVerifier.withVirtualTime(service::slowFlux)
				.expectSubscription()
				.expectNoEvent(Duration.ofMillis(99))
				.then(() -> assertThat(service.invocations()).isEqualTo(1))
				.thenAwait(Duration.ofMillis(1))
				.expectNext("a 2", "b 2")
				.expectComplete()
				.verify(TIMEOUT);
		});
	}

	@Test
	void fluxEndsWithTheOriginalErrorWhenAttemptsRunOut() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			service.failFirst(100);
			StepVerifier.create(service.flux())
				.expectErrorSatisfies((failure) -> assertThat(failure).isSameAs(service.failures().get(2)))
				.verify(TIMEOUT);
			assertThat(service.invocations()).isEqualTo(3);
		});
	}

	@Test
	void monoPollsWithRetryIfUntilTheResultIsReady() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			service.readyAfter(3);
			StepVerifier.create(service.poll())
				.expectNext(new Job("READY", 3))
				.expectComplete()
				.verify(TIMEOUT);
			assertThat(service.invocations()).isEqualTo(3);
		});
	}

	@Test
	void monoReturnsTheLastResultWhenRetryIfStillMatchesAsAttemptsRunOut() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			service.readyAfter(100);
			StepVerifier.create(service.poll())
				.expectNext(new Job("NOT_READY", 3))
				.expectComplete()
				.verify(TIMEOUT);
			assertThat(service.invocations()).isEqualTo(3);
		});
	}

	@Test
	void monoCallsTheFallbackWithTheOriginalError() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			service.failFirst(100);
			StepVerifier.create(service.withFallback("42"))
				.expectNext("fallback 42 after failure 3")
				.expectComplete()
				.verify(TIMEOUT);
			assertThat(service.invocations()).isEqualTo(3);
			assertThat(service.fallbackFailures()).singleElement().isSameAs(service.failures().get(2));
		});
	}

	@Test
	void monoDoesNotCallTheFallbackOnSuccess() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			service.failFirst(1);
			StepVerifier.create(service.withFallback("42")).expectNext("ok 2").expectComplete().verify(TIMEOUT);
			assertThat(service.fallbackFailures()).isEmpty();
		});
	}

	@Test
	void fluxCallsTheFallbackWithTheOriginalError() {
		this.contextRunner.run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			service.failFirst(100);
			StepVerifier.create(service.fluxWithFallback())
				.expectNext("fallback after failure 3")
				.expectComplete()
				.verify(TIMEOUT);
			assertThat(service.fallbackFailures()).singleElement().isSameAs(service.failures().get(2));
		});
	}

	record Job(String status, int poll) {

	}

	static class ReactiveService extends ScriptedFailures {

		private final AtomicInteger invocations = new AtomicInteger();

		private final AtomicInteger subscriptions = new AtomicInteger();

		public int invocations() {
			return this.invocations.get();
		}

		public int subscriptions() {
			return this.subscriptions.get();
		}

		@Backoff(baseDelay = "100ms", multiplier = "2", jitter = Jitter.NONE)
		public Mono<String> mono() {
			return attempt();
		}

		@Backoff(baseDelay = "0ms", maxDelay = "0ms")
		public Mono<String> immediateMono() {
			return attempt();
		}

		@Backoff(baseDelay = "0ms", maxDelay = "0ms")
		public Mono<String> throwingMono() throws IOException {
			int call = this.invocations.incrementAndGet();
			if (failureOf(call) instanceof IOException failure) {
				throw failure;
			}
			return Mono.just("ok " + call);
		}

		@Backoff(baseDelay = "0ms", maxDelay = "0ms")
		public Flux<String> flux() {
			return attempt().flatMapMany((value) -> Flux.just("a", "b").map((item) -> item + value.substring(2)));
		}

		@Backoff(baseDelay = "100ms", jitter = Jitter.NONE)
		public Flux<String> slowFlux() {
			return flux();
		}

		@Backoff(baseDelay = "0ms", maxDelay = "0ms", retryIf = "#result.status == 'NOT_READY'")
		public Mono<Job> poll() {
			int call = this.invocations.incrementAndGet();
			return Mono.just(new Job(isReady(call) ? "READY" : "NOT_READY", call));
		}

		@Backoff(baseDelay = "0ms", maxDelay = "0ms", fallback = "recover")
		public Mono<String> withFallback(String id) {
			return attempt();
		}

		Mono<String> recover(String id, Throwable failure) {
			fellBack(failure);
			return Mono.just("fallback " + id + " after " + failure.getMessage());
		}

		@Backoff(baseDelay = "0ms", maxDelay = "0ms", fallback = "recoverFlux")
		public Flux<String> fluxWithFallback() {
			return flux();
		}

		Flux<String> recoverFlux(Throwable failure) {
			fellBack(failure);
			return Flux.just("fallback after " + failure.getMessage());
		}

		private Mono<String> attempt() {
			int call = this.invocations.incrementAndGet();
			return Mono.defer(() -> {
				this.subscriptions.incrementAndGet();
				Throwable failure = failureOf(call);
				return (failure != null) ? Mono.error(failure) : Mono.just("ok " + call);
			});
		}

	}

}
