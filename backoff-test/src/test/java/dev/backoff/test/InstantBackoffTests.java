package dev.backoff.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Admission;
import dev.backoff.Backoff;
import dev.backoff.BackoffDelays;
import dev.backoff.BackoffSchedule;
import dev.backoff.Outcome;
import dev.backoff.OverloadControls;
import dev.backoff.Pacing;
import dev.backoff.RetryBudget;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import dev.backoff.spring.config.BackoffPolicies;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;

import static dev.backoff.test.BackoffAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link InstantBackoff} through the real auto-configuration, with a production-sized policy
 * (6 attempts, 2 s base delay, 30 s cap: 2 + 4 + 8 + 16 + 30 = 60 s of ceilings): every call
 * retries without waiting, the recorder sees the seeded waits, and the meters count them.
 */
@SpringBootTest(classes = InstantBackoffTests.Application.class,
		properties = { "backoff.policies.quotes.max-attempts=6", "backoff.policies.quotes.base-delay=2s",
				"backoff.policies.quotes.max-delay=30s", "backoff.policies.throttled.base-delay=100ms",
				"backoff.policies.throttled.jitter=equal", "backoff.policies.throttled.throttle-base-delay=1s",
				"backoff.policies.throttled.throttle-on=dev.backoff.test.InstantBackoffTests$SlowDown",
				"backoff.policies.budgeted.budget.enabled=true", "backoff.policies.guarded.admission.enabled=true",
				"backoff.policies.guarded.pacing.enabled=true" })
@InstantBackoff(seed = 42)
class InstantBackoffTests {

	@Autowired
	private Quotes quotes;

	@Autowired
	private BackoffRecorder recorder;

	@Autowired
	private BackoffPolicies policies;

	@Autowired
	private MeterRegistry meters;

	@Test
	void exhaustsSixAttemptsOfAProductionPolicyWithoutWaitingWithTheSeededWaits() {
		this.quotes.failNext(100);
		assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(this.quotes::fetch);
		BackoffSchedule schedule = this.policies.get("quotes").getSchedule();
		Duration[] seeded = schedule.delays(new SplittableRandom(42)).stream().toArray(Duration[]::new);
		assertThat(seeded).hasSize(5);
		assertThat(this.recorder).method("Quotes.fetch")
			.hasCalls(1)
			.lastCall()
			.endedWith(Outcome.EXHAUSTED)
			.madeAttempts(6)
			.waited(seeded)
			.waitedWithinCeilings();
		assertThat(this.recorder.calls().get(0).failures()).hasSize(6).allMatch(UncheckedIOException.class::isInstance);
		// The meters count the waits that would have happened.
		double recorded = this.meters.get("backoff.delay").tag("method", "Quotes.fetch").timer()
			.totalTime(TimeUnit.NANOSECONDS);
		long seededTotal = 0;
		for (Duration wait : seeded) {
			seededTotal += wait.toNanos();
		}
		assertThat(recorded).isEqualTo((double) seededTotal);
	}

	@Test
	void retriesACompletableFutureAtOnceAndInOrder() throws Exception {
		this.quotes.failNext(2);
		assertThat(this.quotes.fetchAsync().get(10, TimeUnit.SECONDS)).isEqualTo("quote 3");
		// The first attempt on the caller's thread, the retries on the instant scheduler's one.
		assertThat(this.quotes.threads()).hasSize(3)
			.first()
			.isEqualTo(Thread.currentThread().getName());
		assertThat(this.quotes.threads().subList(1, 3)).allMatch((name) -> name.startsWith("backoff-instant-"));
		assertThat(this.recorder).method("Quotes.fetchAsync")
			.hasCalls(1)
			.lastCall()
			.endedWith(Outcome.SUCCESS_AFTER_RETRY)
			.madeAttempts(3)
			.waitedWithinCeilings();
	}

	/** The instant scheduler skips the waits between attempts, not an attempt's own timeout. */
	@Test
	void anAttemptTimeoutStillGivesAnAttemptItsTime() throws Exception {
		this.quotes.failNext(0);
		assertThat(this.quotes.fetchLater().get(10, TimeUnit.SECONDS)).isEqualTo("later");
		assertThat(this.recorder).method("Quotes.fetchLater")
			.hasCalls(1)
			.lastCall()
			.endedWith(Outcome.SUCCESS)
			.madeAttempts(1);
	}

	@Test
	void retriesAMonoWithoutItsDelays() {
		this.quotes.failNext(2);
		assertThat(this.quotes.fetchMono().block(Duration.ofSeconds(10))).isEqualTo("quote 3");
		// No Mono.delay: the resubscriptions stay on the caller's thread, not Reactor's parallel ones.
		assertThat(this.quotes.threads()).hasSize(3).containsOnly(Thread.currentThread().getName());
		assertThat(this.recorder).method("Quotes.fetchMono").hasCalls(1).lastCall().madeAttempts(3);
	}

	@Test
	void eachTestSeesOnlyItsOwnCalls() {
		// Whichever test runs first, the recorder was reset before this one.
		this.quotes.failNext(0);
		this.quotes.fetch();
		assertThat(this.recorder).hasCalls(1).lastCall().endedWith(Outcome.SUCCESS).madeAttempts(1);
	}

	@Test
	void aThrottledRetryIsJudgedByTheThrottlingScheduleAndItsExactWaitsAreTheDocumentedOnes() {
		this.quotes.failNext(2);
		assertThat(this.quotes.fetchThrottled()).isEqualTo("ok");
		// As docs/testing.md gives them: each retry's wait from the seeded sequence, drawn from
		// the throttling schedule when the failure before it was throttling.
		BackoffDelays delays = this.policies.get("throttled").getSchedule().delays(new SplittableRandom(42));
		Duration[] exact = { Duration.ofNanos(delays.nextNanos(true)), Duration.ofNanos(delays.nextNanos(true)) };
		assertThat(exact[0]).isBetween(Duration.ofMillis(500), Duration.ofSeconds(1));
		assertThat(this.recorder).method("Quotes.fetchThrottled")
			.lastCall()
			.endedWith(Outcome.SUCCESS_AFTER_RETRY)
			.waited(exact)
			.waitedWithinCeilings();
	}

	@Test
	void eachTestStartsWithTheConfiguredBudgetWhateverAnotherTestSpent() {
		spendTheBudget();
	}

	@Test
	void anotherTestStartsWithTheConfiguredBudgetToo() {
		spendTheBudget();
	}

	/** Asserts the budget is full, then spends it to where it stops retries. */
	private void spendTheBudget() {
		RetryBudget budget = this.policies.getBudget("budgeted");
		assertThat(budget.getTokens()).isEqualTo(budget.getMaxTokens());
		this.quotes.failNext(100);
		assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(this.quotes::fetchBudgeted);
		assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(this.quotes::fetchBudgeted);
		assertThat(budget.allowsRetries()).isFalse();
	}

	@Test
	void eachTestStartsWithAdmissionAndPacingAsNewWhateverAnotherTestMadeThemSee() {
		overloadTheControls();
	}

	@Test
	void anotherTestStartsWithAdmissionAndPacingAsNewToo() {
		overloadTheControls();
	}

	/** Asserts admission rejects nothing and pacing sleeps, then makes the one reject and wakes the other. */
	private void overloadTheControls() {
		OverloadControls controls = this.policies.getEffective("guarded").controls();
		Admission admission = controls.getAdmission();
		Pacing pacing = controls.getPacing();
		assertThat(admission.rejectionProbability()).isZero();
		assertThat(pacing.isActive()).isFalse();
		// Attempts sent and none accepted: the dependency is down.
		for (int i = 0; i < 10; i++) {
			admission.admit();
		}
		pacing.onThrottled();
		assertThat(admission.rejectionProbability()).isPositive();
		assertThat(pacing.isActive()).isTrue();
	}

	static class SlowDown extends RuntimeException {

		SlowDown() {
			super("slow down");
		}

	}

	@SpringBootConfiguration
	@ImportAutoConfiguration({ BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class })
	static class Application {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		Quotes quotes() {
			return new Quotes();
		}

	}

	static class Quotes {

		private final AtomicInteger calls = new AtomicInteger();

		private final List<String> threads = new CopyOnWriteArrayList<>();

		private volatile int failuresLeft;

		void failNext(int failures) {
			this.failuresLeft = failures;
			this.calls.set(0);
			this.threads.clear();
		}

		List<String> threads() {
			return this.threads;
		}

		@Backoff("quotes")
		public String fetch() {
			return attempt();
		}

		@Backoff("throttled")
		public String fetchThrottled() {
			if (this.failuresLeft > 0) {
				this.failuresLeft--;
				throw new SlowDown();
			}
			return "ok";
		}

		@Backoff("budgeted")
		public String fetchBudgeted() {
			return attempt();
		}

		@Backoff("quotes")
		public CompletableFuture<String> fetchAsync() {
			try {
				return CompletableFuture.completedFuture(attempt());
			}
			catch (UncheckedIOException ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}

		/** Answers 100ms after the call, well within its attempt timeout. */
		@Backoff(value = "quotes", attemptTimeout = "10s")
		public CompletableFuture<String> fetchLater() {
			return CompletableFuture.supplyAsync(() -> "later",
					CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS));
		}

		@Backoff("quotes")
		public Mono<String> fetchMono() {
			return Mono.fromCallable(this::attempt);
		}

		private String attempt() {
			int call = this.calls.incrementAndGet();
			this.threads.add(Thread.currentThread().getName());
			if (this.failuresLeft > 0) {
				this.failuresLeft--;
				throw new UncheckedIOException(new IOException("down"));
			}
			return "quote " + call;
		}

	}

}
