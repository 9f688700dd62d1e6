package dev.backoff.test;

import java.io.IOException;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffPolicy;
import dev.backoff.Outcome;
import dev.backoff.Sleeper;
import org.junit.jupiter.api.Test;

import static dev.backoff.test.BackoffAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link BackoffRecorder} and {@link BackoffAssertions} without Spring: an executor with
 * {@link Sleeper#INSTANT}, a seeded random source and the recorder's listener.
 */
class BackoffRecorderTests {

	private final BackoffRecorder recorder = new BackoffRecorder();

	private final BackoffPolicy policy = BackoffPolicy.builder().maxAttempts(4).baseDelay(Duration.ofSeconds(1)).build();

	private final BackoffExecutor executor = BackoffExecutor.builder()
		.sleeper(Sleeper.INSTANT)
		.randomSource(() -> new SplittableRandom(7))
		.listener(this.recorder.listener("quotes", "Quotes.fetch", this.policy))
		.build();

	@Test
	void recordsEachFailureWaitAndTheOutcome() throws Exception {
		AtomicInteger attempts = new AtomicInteger();
		String result = this.executor.call(this.policy, () -> {
			if (attempts.incrementAndGet() < 3) {
				throw new IOException("down " + attempts.get());
			}
			return "ok";
		});
		assertThat(result).isEqualTo("ok");
		Duration[] seeded = this.policy.getSchedule().delays(new SplittableRandom(7)).stream().limit(2)
			.toArray(Duration[]::new);
		assertThat(this.recorder).hasCalls(1)
			.lastCall()
			.endedWith(Outcome.SUCCESS_AFTER_RETRY)
			.madeAttempts(3)
			.waited(seeded)
			.waitedWithinCeilings();
		assertThat(this.recorder.calls().get(0).failures()).extracting(Throwable::getMessage)
			.containsExactly("down 1", "down 2");
	}

	@Test
	void recordsTheWaitsThatAServersRetryAfterSet() throws Exception {
		BackoffPolicy hinted = this.policy.toBuilder()
			.retryAfter((failure) -> failure.getMessage().equals("slow down") ? Duration.ofSeconds(7) : null)
			.maxRetryAfter(Duration.ofSeconds(10))
			.build();
		BackoffExecutor executor = BackoffExecutor.builder()
			.sleeper(Sleeper.INSTANT)
			.randomSource(() -> new SplittableRandom(7))
			.listener(this.recorder.listener("quotes", "Quotes.fetch", hinted))
			.build();
		AtomicInteger attempts = new AtomicInteger();
		executor.call(hinted, () -> {
			if (attempts.incrementAndGet() < 3) {
				throw new IOException((attempts.get() == 2) ? "slow down" : "down");
			}
			return "ok";
		});
		RecordedCall call = this.recorder.calls().get(0);
		assertThat(call.retryAfter()).containsExactly(org.assertj.core.api.Assertions.entry(2, Duration.ofSeconds(7)));
		assertThat(call.waits()).hasSize(2).endsWith(Duration.ofSeconds(7));
		// 7s is past the second retry's 2s ceiling, and within max-retry-after.
		assertThat(this.recorder).lastCall().honouredRetryAfter(Duration.ofSeconds(7)).waitedWithinCeilings();
		RecordedCall tooLong = new RecordedCall("quotes", "Quotes.fetch", this.policy, java.util.List.of(),
				java.util.List.of(Duration.ofSeconds(30)), Outcome.SUCCESS_AFTER_RETRY, 2,
				new java.util.TreeMap<>(java.util.Map.of(1, Duration.ofSeconds(30))));
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(tooLong).waitedWithinCeilings())
			.withMessageContaining("Retry-After wait before retry 1 of Quotes.fetch within max-retry-after PT20S but it was PT30S");
	}

	@Test
	void assertionsFailWithWhatWasRecorded() throws Exception {
		this.executor.call(this.policy, () -> "ok");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThat(this.recorder).hasCalls(2))
			.withMessageContaining("Expected 2 @Backoff calls but recorded 1");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThat(this.recorder).lastCall().endedWith(Outcome.EXHAUSTED))
			.withMessageContaining("to end with EXHAUSTED but it ended with SUCCESS");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThat(this.recorder).method("Other.call").lastCall())
			.withMessageContaining("Expected a @Backoff call of Other.call but recorded none");
	}

	@Test
	void waitsBeyondTheCeilingsFailTheCeilingCheck() {
		RecordedCall call = new RecordedCall("quotes", "Quotes.fetch", this.policy, java.util.List.of(),
				java.util.List.of(Duration.ofSeconds(5)), Outcome.SUCCESS_AFTER_RETRY, 2);
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(call).waitedWithinCeilings())
			.withMessageContaining("before retry 1 of Quotes.fetch within [0, PT1S] (normal schedule) but it was PT5S");
	}

	@Test
	void resetForgetsEveryCall() throws Exception {
		this.executor.call(this.policy, () -> "ok");
		this.recorder.reset();
		assertThat(this.recorder.calls()).isEmpty();
	}

}
