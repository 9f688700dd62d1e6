package dev.backoff;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;

import dev.backoff.RecordingListener.Failure;
import dev.backoff.RecordingListener.RetryScheduled;
import dev.backoff.RecordingListener.Success;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link BackoffCall}, stepped by hand as an integration that schedules its own attempts
 * would: the protocol's decisions and exactly one end reported.
 */
class BackoffCallTests {

	private final RecordingListener listener = new RecordingListener();

	private final BackoffExecutor executor = BackoffExecutor.builder().clock(new ManualNanoClock()).build();

	private final BackoffPolicy policy = BackoffPolicy.builder()
		.baseDelay(Duration.ofMillis(100))
		.jitter(Jitter.NONE)
		.maxAttempts(3)
		.abortOn(IllegalArgumentException.class)
		.build();

	@Test
	void aNewCallHasNoAttemptNoOutcomeAndHasNotEnded() {
		BackoffCall call = this.executor.start(this.policy, null, this.listener, null);
		assertThat(call.getPolicy()).isSameAs(this.policy);
		assertThat(call.getAttempts()).isZero();
		assertThat(call.getOutcome()).isNull();
		assertThat(call.isEnded()).isFalse();
		assertThat(this.listener.events()).isEmpty();
	}

	@Test
	void aFailedAttemptGetsTheNextDelayAndASuccessEndsTheCall() {
		IOException failure = new IOException();
		BackoffCall call = this.executor.start(this.policy, null, this.listener, null);
		call.beginAttempt();
		assertThat(call.nextDelay(failure)).isEqualTo(Duration.ofMillis(100));
		call.beginAttempt();
		assertThat(call.succeed()).isTrue();
		assertThat(call.isEnded()).isTrue();
		assertThat(call.getOutcome()).isEqualTo(Outcome.SUCCESS_AFTER_RETRY);
		assertThat(this.listener.events()).containsExactly(new RetryScheduled(1, Duration.ofMillis(100), failure),
				new Success(Outcome.SUCCESS_AFTER_RETRY, 2));
	}

	@Test
	void theLastAttemptGetsNoDelayAndEndsExhaustedWithTheEarlierFailuresSuppressed() {
		IOException first = new IOException("first");
		IOException second = new IOException("second");
		IOException last = new IOException("last");
		BackoffCall call = this.executor.start(this.policy, null, this.listener, null);
		call.beginAttempt();
		call.nextDelay(first);
		call.beginAttempt();
		call.nextDelay(second);
		call.beginAttempt();
		assertThat(call.nextDelay(last)).isNull();
		assertThat(call.getOutcome()).isEqualTo(Outcome.EXHAUSTED);
		assertThat(call.end(last)).isSameAs(last);
		assertThat(last.getSuppressed()).containsExactly(first, second);
		assertThat(this.listener.ends()).containsExactly(new Failure(Outcome.EXHAUSTED, 3, last));
	}

	@Test
	void aFailureThatIsNotRetryableGetsNoDelay() {
		IllegalArgumentException failure = new IllegalArgumentException();
		BackoffCall call = this.executor.start(this.policy, null, this.listener, null);
		call.beginAttempt();
		assertThat(call.nextDelay(failure)).isNull();
		assertThat(call.getOutcome()).isEqualTo(Outcome.NOT_RETRYABLE);
		call.end(failure);
		assertThat(this.listener.events()).containsExactly(new Failure(Outcome.NOT_RETRYABLE, 1, failure));
	}

	@Test
	void onlyTheFirstEndIsReported() {
		IOException failure = new IOException();
		BackoffCall call = this.executor.start(this.policy, null, this.listener, null);
		call.beginAttempt();
		CancellationException cancellation = new CancellationException();
		assertThat(call.interrupt(cancellation)).isTrue();
		assertThat(call.succeed()).isFalse();
		assertThat(call.interrupt(failure)).isFalse();
		call.end(failure);
		assertThat(call.getOutcome()).isEqualTo(Outcome.INTERRUPTED);
		assertThat(this.listener.events()).containsExactly(new Failure(Outcome.INTERRUPTED, 1, cancellation));
	}

	@Test
	void aFirstAttemptSuccessIsSuccess() {
		BackoffCall call = this.executor.start(this.policy, null, this.listener, null);
		call.beginAttempt();
		call.succeed();
		assertThat(this.listener.events()).containsExactly(new Success(Outcome.SUCCESS, 1));
	}

}
