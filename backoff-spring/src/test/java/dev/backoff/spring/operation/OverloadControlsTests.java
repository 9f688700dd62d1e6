package dev.backoff.spring.operation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.backoff.Admission;
import dev.backoff.AdmissionRejectedException;
import dev.backoff.Backoff;
import dev.backoff.ManualNanoClock;
import dev.backoff.NanoClock;
import dev.backoff.Pacing;
import dev.backoff.RecordingSleeper;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.metrics.BackoffMetrics;
import dev.backoff.spring.metrics.BackoffOverloadMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A policy's overload controls through every return type: admission rejects attempts locally
 * (never sent, counted as {@code admission_rejected} calls, the caller told why) once the
 * dependency fails, blocking, {@code CompletableFuture}, {@code Mono} and {@code Flux} alike;
 * pacing makes a {@code Mono}'s next call wait for its slot on Reactor's timer once the
 * dependency has throttled (virtual time).
 */
class OverloadControlsTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private static final int CALLS = 100;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class)
		.withBean(RecordingSleeper.class)
		.withBean(Dependency.class)
		.withPropertyValues("backoff.policies.overloaded.max-attempts=1",
				"backoff.policies.overloaded.admission.enabled=true", "backoff.policies.paced.base-delay=10ms",
				"backoff.policies.paced.pacing.enabled=true",
				"backoff.policies.paced.throttle-on=" + Throttled.class.getName());

	@Test
	void aBlockingMethodsAttemptsAreRejectedLocallyOnceTheDependencyFails() {
		this.runner.run((context) -> rejectsLocally(context, "Dependency.blocking", () -> {
			try {
				context.getBean(Dependency.class).blocking();
				return false;
			}
			catch (AdmissionRejectedException ex) {
				return true;
			}
			catch (UncheckedIOException ex) {
				return false;
			}
		}));
	}

	@Test
	void aFuturesAttemptsAreRejectedLocallyOnceTheDependencyFails() {
		this.runner.run((context) -> rejectsLocally(context, "Dependency.future", () -> {
			try {
				context.getBean(Dependency.class).future().join();
				return false;
			}
			catch (CompletionException ex) {
				return ex.getCause() instanceof AdmissionRejectedException;
			}
		}));
	}

	@Test
	void aMonosAttemptsAreRejectedLocallyOnceTheDependencyFails() {
		this.runner.run((context) -> rejectsLocally(context, "Dependency.mono",
				() -> rejected(() -> context.getBean(Dependency.class).mono().block(TIMEOUT))));
	}

	@Test
	void aFluxsAttemptsAreRejectedLocallyOnceTheDependencyFails() {
		this.runner.run((context) -> rejectsLocally(context, "Dependency.flux",
				() -> rejected(() -> context.getBean(Dependency.class).flux().blockLast(TIMEOUT))));
	}

	/**
	 * Admission and pacing read the application's {@link NanoClock}, as the executor does: a
	 * pace's wait and a call's {@code max-elapsed} are then counted on the same clock.
	 */
	@Test
	void admissionAndPacingCountTimeOnTheApplicationsNanoClock() {
		ManualNanoClock clock = new ManualNanoClock();
		this.runner.withBean(NanoClock.class, () -> clock).run((context) -> {
			BackoffPolicies policies = context.getBean(BackoffPolicies.class);
			Pacing pacing = policies.getEffective("paced").controls().getPacing();
			pacing.onThrottled();
			long first = pacing.acquire();
			// The clock stands still: the next slot is one interval later, to the nanosecond.
			assertThat(pacing.acquire() - first).isEqualTo((long) (1e9 / pacing.rate()));
			Admission admission = policies.getEffective("overloaded").controls().getAdmission();
			for (int i = 0; i < 10; i++) {
				admission.admit();
			}
			assertThat(admission.rejectionProbability()).isPositive();
			clock.advance(admission.getWindow().plusSeconds(1));
			assertThat(admission.rejectionProbability()).isZero();
		});
	}

	@Test
	void onceThrottledAMonosNextCallWaitsForItsSlotOnTheTimerNotAThread() {
		this.runner.run((context) -> {
			Dependency dependency = context.getBean(Dependency.class);
			Pacing pacing = context.getBean(BackoffPolicies.class).getEffective("paced").controls().getPacing();
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get(BackoffOverloadMetrics.PACING_RATE).tag("policy", "paced").gauge().value()).isNaN();
			Timer waits = registry.get(BackoffOverloadMetrics.PACING_WAIT).tag("policy", "paced")
				.tag("method", "Dependency.paced").timer();
			assertThat(waits.count()).isZero();
			dependency.throttleNext();
			StepVerifier.create(dependency.paced()).expectNext("ok").expectComplete().verify(TIMEOUT);
			assertThat(pacing.isActive()).isTrue();
			long interval = (long) (1e9 / pacing.rate());
			// Another caller takes the next slot: this call's is one interval later still.
			pacing.acquire();
			int sent = dependency.sent();
			StepVerifier.withVirtualTime(dependency::paced)
				.expectSubscription()
				.thenAwait(Duration.ofNanos(interval / 2))
				.then(() -> assertThat(dependency.sent()).isEqualTo(sent))
				.thenAwait(Duration.ofNanos(2 * interval))
				.expectNext("ok")
				.expectComplete()
				.verify(TIMEOUT);
			assertThat(dependency.sent()).isEqualTo(sent + 1);
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).isEmpty();
			assertThat(registry.get(BackoffOverloadMetrics.PACING_RATE).tag("policy", "paced").gauge().value())
				.isEqualTo(pacing.rate());
			assertThat(waits.totalTime(TimeUnit.NANOSECONDS)).isGreaterThan(interval);
		});
	}

	@Test
	void theControlsGaugesFollowALiveChange() {
		this.runner.run((context) -> {
			BackoffPolicies policies = context.getBean(BackoffPolicies.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.find(BackoffOverloadMetrics.REJECTION_PROBABILITY).tag("policy", "overloaded").gauge())
				.isNotNull();
			policies.apply(policies.snapshot().withChange("overloaded", Map.of("admission.enabled", false,
					"pacing.enabled", true)));
			assertThat(registry.find(BackoffOverloadMetrics.REJECTION_PROBABILITY).tag("policy", "overloaded").gauge())
				.isNull();
			assertThat(registry.get(BackoffOverloadMetrics.PACING_RATE).tag("policy", "overloaded").gauge().value())
				.isNaN();
			policies.apply(policies.snapshot().withChange("overloaded", Map.of("admission.enabled", true)));
			assertThat(registry.get(BackoffOverloadMetrics.REJECTION_PROBABILITY).tag("policy", "overloaded").gauge()
				.value()).isZero();
		});
	}

	/**
	 * Every attempt fails, so the rejection probability climbs to max-rejection (0.9): of 100
	 * calls about 90 are rejected; fewer than half would be a defect, not chance.
	 */
	private static void rejectsLocally(AssertableApplicationContext context, String method,
			Supplier<Boolean> call) {
		Dependency dependency = context.getBean(Dependency.class);
		int rejected = 0;
		for (int i = 0; i < CALLS; i++) {
			if (call.get()) {
				rejected++;
			}
		}
		assertThat(rejected).isGreaterThan(CALLS / 2).isLessThan(CALLS);
		// A rejected attempt is never sent.
		assertThat(dependency.sent()).isEqualTo(CALLS - rejected);
		MeterRegistry registry = context.getBean(MeterRegistry.class);
		assertThat(registry.get(BackoffMetrics.CALLS).tag("method", method).tag("outcome", "admission_rejected")
			.counter().count()).isEqualTo(rejected);
		assertThat(registry.get(BackoffMetrics.CALLS).tag("method", method).tag("outcome", "exhausted")
			.counter().count()).isEqualTo(CALLS - rejected);
		assertThat(registry.get(BackoffOverloadMetrics.REJECTION_PROBABILITY).tag("policy", "overloaded").gauge().value())
			.isGreaterThan(0.5).isLessThanOrEqualTo(0.9);
		// The paced policy has no admission, the overloaded one no pacing.
		assertThat(registry.find(BackoffOverloadMetrics.REJECTION_PROBABILITY).tag("policy", "paced").gauge()).isNull();
		assertThat(registry.find(BackoffOverloadMetrics.PACING_RATE).tag("policy", "overloaded").gauge()).isNull();
	}

	private static boolean rejected(Runnable call) {
		try {
			call.run();
			return false;
		}
		catch (AdmissionRejectedException ex) {
			return true;
		}
		catch (RuntimeException ex) {
			assertThat(ex).hasRootCauseInstanceOf(IOException.class);
			return false;
		}
	}

	/** Fails every attempt sent, counting them. */
	static class Dependency {

		private final AtomicInteger sent = new AtomicInteger();

		private volatile boolean throttle;

		@Backoff("overloaded")
		public String blocking() {
			this.sent.incrementAndGet();
			throw new UncheckedIOException(new IOException("down"));
		}

		@Backoff("overloaded")
		public CompletableFuture<String> future() {
			this.sent.incrementAndGet();
			return CompletableFuture.failedFuture(new IOException("down"));
		}

		@Backoff("overloaded")
		public Mono<String> mono() {
			this.sent.incrementAndGet();
			return Mono.error(new IOException("down"));
		}

		@Backoff("overloaded")
		public Flux<String> flux() {
			this.sent.incrementAndGet();
			return Flux.error(new IOException("down"));
		}

		@Backoff("paced")
		public Mono<String> paced() {
			this.sent.incrementAndGet();
			if (this.throttle) {
				this.throttle = false;
				return Mono.error(new Throttled());
			}
			return Mono.just("ok");
		}

		void throttleNext() {
			this.throttle = true;
		}

		int sent() {
			return this.sent.get();
		}

	}

	@SuppressWarnings("serial")
	static class Throttled extends IOException {

	}

}
