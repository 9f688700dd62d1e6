package dev.backoff.spring.operation;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.Pacing;
import dev.backoff.RecordingSleeper;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.metrics.BackoffMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code Mono}'s or a {@code Flux}'s retry (and so a {@code suspend} function's, retried as a
 * {@code Mono}) whose slot at the pace lies past what {@code max-elapsed} leaves of the call is
 * not sent and takes no slot: the subscriber gets the first attempt's own failure (or the value
 * that asked for the retry), the call ends {@code timed_out}, at the retry's backoff wait (virtual
 * time), well within {@code max-elapsed}.
 * The pace is woken before the call; while its first attempt runs, other callers take the slots of
 * the next 5 s, so the retry's is past the policy's 1 s.
 */
class ReactorPacedRetryTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private static final Duration TAKEN = Duration.ofSeconds(5);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class)
		.withBean(RecordingSleeper.class)
		.withBean(Dependency.class)
		.withPropertyValues("backoff.policies.bounded.base-delay=10ms", "backoff.policies.bounded.jitter=none",
				"backoff.policies.bounded.max-elapsed=1s", "backoff.policies.bounded.pacing.enabled=true",
				"backoff.policies.bounded.throttle-on=" + Throttled.class.getName(),
				"backoff.policies.roomy.base-delay=10ms", "backoff.policies.roomy.jitter=none",
				"backoff.policies.roomy.max-elapsed=20s", "backoff.policies.roomy.pacing.enabled=true",
				"backoff.policies.roomy.throttle-on=" + Throttled.class.getName());

	@Test
	void aMonosRetryWhoseSlotIsPastMaxElapsedIsNotSentAndTheSubscriberGetsTheOriginalFailure() {
		this.runner.run((context) -> {
			Dependency dependency = context.getBean(Dependency.class);
			Pacing pacing = pacing(context, "bounded", dependency);
			StepVerifier.withVirtualTime(dependency::mono)
				.expectSubscription()
				.thenAwait(Duration.ofMillis(10))
				.expectErrorSatisfies((failure) -> assertThat(failure).isSameAs(dependency.throttled()))
				.verify(TIMEOUT);
			assertNotSentAndTimedOut(context, "Dependency.mono", dependency, pacing);
		});
	}

	@Test
	void aFluxsRetryWhoseSlotIsPastMaxElapsedIsNotSentAndTheSubscriberGetsTheOriginalFailure() {
		this.runner.run((context) -> {
			Dependency dependency = context.getBean(Dependency.class);
			Pacing pacing = pacing(context, "bounded", dependency);
			StepVerifier.withVirtualTime(dependency::flux)
				.expectSubscription()
				.thenAwait(Duration.ofMillis(10))
				.expectErrorSatisfies((failure) -> assertThat(failure).isSameAs(dependency.throttled()))
				.verify(TIMEOUT);
			assertNotSentAndTimedOut(context, "Dependency.flux", dependency, pacing);
		});
	}

	@Test
	void aMonosRetryAskedByAValueWhoseSlotIsPastMaxElapsedIsNotSentAndTheSubscriberGetsThatValue() {
		this.runner.run((context) -> {
			Dependency dependency = context.getBean(Dependency.class);
			Pacing pacing = pacing(context, "bounded", dependency);
			StepVerifier.withVirtualTime(dependency::polled)
				.expectSubscription()
				.thenAwait(Duration.ofMillis(10))
				.expectNext("pending")
				.expectComplete()
				.verify(TIMEOUT);
			assertNotSentAndTimedOut(context, "Dependency.polled", dependency, pacing);
		});
	}

	@Test
	void aMonosRetryWhoseSlotIsWithinMaxElapsedWaitsForItAndGoes() {
		this.runner.run((context) -> {
			Dependency dependency = context.getBean(Dependency.class);
			pacing(context, "roomy", dependency);
			StepVerifier.withVirtualTime(dependency::roomy)
				.expectSubscription()
				.thenAwait(Duration.ofMillis(10))
				.thenAwait(Duration.ofSeconds(4))
				// Its slot is the first past the others', more than 5 s after the first attempt.
				.then(() -> assertThat(dependency.sent()).isEqualTo(1))
				.thenAwait(TAKEN.plusSeconds(5))
				.expectNext("ok")
				.expectComplete()
				.verify(TIMEOUT);
			assertThat(dependency.sent()).isEqualTo(2);
		});
	}

	/** Wakes the policy's pace, as another call's throttling answer would, and hands it to the dependency. */
	private static Pacing pacing(AssertableApplicationContext context, String policy, Dependency dependency) {
		Pacing pacing = context.getBean(BackoffPolicies.class).getEffective(policy).controls().getPacing();
		pacing.onThrottled();
		dependency.pace(pacing);
		return pacing;
	}

	private static void assertNotSentAndTimedOut(AssertableApplicationContext context, String method,
			Dependency dependency, Pacing pacing) {
		assertThat(dependency.sent()).isEqualTo(1);
		MeterRegistry registry = context.getBean(MeterRegistry.class);
		assertThat(registry.get(BackoffMetrics.CALLS).tag("method", method).tag("outcome", "timed_out").counter()
			.count()).isEqualTo(1);
		// The first slot past the others' is still free: the retry took none.
		long interval = (long) (1e9 / pacing.rate());
		assertThat(pacing.acquire()).isLessThanOrEqualTo(dependency.lastTaken() + interval);
		assertThat(context.getBean(RecordingSleeper.class).sleeps()).isEmpty();
	}

	/**
	 * Throttles its first attempt, during which other callers take the pace's next slots. A bean
	 * behind a proxy: its state is reached through methods.
	 */
	static class Dependency {

		private final Throttled throttled = new Throttled();

		private final AtomicInteger sent = new AtomicInteger();

		private volatile Pacing pacing;

		/** The wait of the last slot the others took. */
		private volatile long lastTaken;

		@Backoff("bounded")
		public Mono<String> mono() {
			return Mono.defer(() -> (attempt() == 1) ? Mono.error(this.throttled) : Mono.just("ok"));
		}

		@Backoff("bounded")
		public Flux<String> flux() {
			return Flux.defer(() -> (attempt() == 1) ? Flux.error(this.throttled) : Flux.just("ok"));
		}

		@Backoff(value = "bounded", retryIf = "#result == 'pending'")
		public Mono<String> polled() {
			return Mono.fromSupplier(() -> (attempt() == 1) ? "pending" : "ready");
		}

		@Backoff("roomy")
		public Mono<String> roomy() {
			return mono();
		}

		private int attempt() {
			int attempt = this.sent.incrementAndGet();
			if (attempt == 1) {
				long taken;
				while ((taken = this.pacing.acquire(TAKEN.toNanos())) >= 0) {
					this.lastTaken = taken;
				}
			}
			return attempt;
		}

		int sent() {
			return this.sent.get();
		}

		void pace(Pacing pacing) {
			this.pacing = pacing;
		}

		Throttled throttled() {
			return this.throttled;
		}

		long lastTaken() {
			return this.lastTaken;
		}

	}

	@SuppressWarnings("serial")
	static class Throttled extends IOException {

	}

}
