package dev.backoff;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link BackoffPolicy#isRetryable(Throwable)}: {@code retryOn} and {@code abortOn} along the
 * cause chain, abort winning, the default for exceptions and errors, and cause cycles.
 */
class BackoffPolicyClassificationTests {

	@Test
	void byDefaultEveryExceptionIsRetried() {
		BackoffPolicy policy = BackoffPolicy.defaults();
		assertThat(policy.getRules().isRetryable(new IOException())).isTrue();
		assertThat(policy.getRules().isRetryable(new IllegalStateException())).isTrue();
		assertThat(policy.getRules().isRetryable(new InterruptedException())).isTrue();
	}

	@Test
	void byDefaultErrorsAreNotRetried() {
		BackoffPolicy policy = BackoffPolicy.defaults();
		assertThat(policy.getRules().isRetryable(new OutOfMemoryError())).isFalse();
		assertThat(policy.getRules().isRetryable(new AssertionError())).isFalse();
	}

	@Test
	void byDefaultAThrowableThatIsNeitherExceptionNorErrorIsNotRetried() {
		assertThat(BackoffPolicy.defaults().getRules().isRetryable(new Throwable())).isFalse();
	}

	@Test
	void byDefaultAnErrorCausedByAnExceptionIsNotRetried() {
		assertThat(BackoffPolicy.defaults().getRules().isRetryable(new ExceptionInInitializerError(new IOException()))).isFalse();
	}

	@Test
	void retryOnMatchesTheFailureAndItsSubclasses() {
		BackoffPolicy policy = BackoffPolicy.builder().retryOn(IOException.class).build();
		assertThat(policy.getRules().isRetryable(new IOException())).isTrue();
		assertThat(policy.getRules().isRetryable(new FileNotFoundException())).isTrue();
	}

	@Test
	void retryOnRetriesNothingElse() {
		BackoffPolicy policy = BackoffPolicy.builder().retryOn(IOException.class).build();
		assertThat(policy.getRules().isRetryable(new IllegalStateException())).isFalse();
		assertThat(policy.getRules().isRetryable(new Exception())).isFalse();
	}

	@Test
	void retryOnMatchesAnywhereInTheCauseChain() {
		BackoffPolicy policy = BackoffPolicy.builder().retryOn(IOException.class).build();
		Throwable wrapped = new IllegalStateException("outer", new RuntimeException("middle", new IOException("root")));
		assertThat(policy.getRules().isRetryable(wrapped)).isTrue();
	}

	@Test
	void retryOnCanNameAnError() {
		BackoffPolicy policy = BackoffPolicy.builder().retryOn(TransientError.class).build();
		assertThat(policy.getRules().isRetryable(new TransientError())).isTrue();
		assertThat(policy.getRules().isRetryable(new RuntimeException(new TransientError()))).isTrue();
	}

	@Test
	void abortOnStopsAFailureThatIsOtherwiseRetried() {
		BackoffPolicy policy = BackoffPolicy.builder().abortOn(IllegalArgumentException.class).build();
		assertThat(policy.getRules().isRetryable(new IllegalArgumentException())).isFalse();
		assertThat(policy.getRules().isRetryable(new IllegalStateException())).isTrue();
	}

	@Test
	void abortOnMatchesAnywhereInTheCauseChain() {
		BackoffPolicy policy = BackoffPolicy.builder().abortOn(FileNotFoundException.class).build();
		Throwable wrapped = new UncheckedIOException(new FileNotFoundException("gone"));
		assertThat(policy.getRules().isRetryable(wrapped)).isFalse();
	}

	@Test
	void abortOnMatchesAtAnyDepth() {
		BackoffPolicy policy = BackoffPolicy.builder().abortOn(FileNotFoundException.class).build();
		Throwable chain = new FileNotFoundException("gone");
		for (int i = 0; i < 100; i++) {
			chain = new RuntimeException("wrapper", chain);
		}
		assertThat(policy.getRules().isRetryable(chain)).isFalse();
	}

	@Test
	void aFailureWhoseGetCauseThrowsIsClassifiedByWhatCanBeRead() {
		RuntimeException broken = new IllegalStateException("broken") {

			@Override
			public synchronized Throwable getCause() {
				throw new UnsupportedOperationException("no cause");
			}

		};
		BackoffPolicy policy = BackoffPolicy.builder().abortOn(IllegalArgumentException.class).build();
		assertThat(policy.getRules().isRetryable(broken)).isTrue();
		assertThat(BackoffPolicy.builder().abortOn(IllegalStateException.class).build().getRules().isRetryable(broken))
			.isFalse();
	}

	@Test
	void abortOnWinsOverRetryOnForASubclass() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.retryOn(IOException.class)
			.abortOn(FileNotFoundException.class)
			.build();
		assertThat(policy.getRules().isRetryable(new FileNotFoundException())).isFalse();
		assertThat(policy.getRules().isRetryable(new IOException())).isTrue();
	}

	@Test
	void abortOnWinsWhenBothMatchInOneCauseChain() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.retryOn(IOException.class)
			.abortOn(SecurityException.class)
			.build();
		assertThat(policy.getRules().isRetryable(new IOException("denied", new SecurityException()))).isFalse();
	}

	@Test
	void aCauseCycleWithoutAMatchDoesNotHang() {
		BackoffPolicy policy = BackoffPolicy.builder().retryOn(IOException.class).abortOn(SecurityException.class).build();
		assertThat(policy.getRules().isRetryable(cycle())).isFalse();
	}

	@Test
	void aCauseCycleIsStillSearchedForAMatch() {
		RuntimeException first = new RuntimeException("first");
		IOException second = new IOException("second", first);
		first.initCause(second);
		BackoffPolicy policy = BackoffPolicy.builder().retryOn(IOException.class).build();
		assertThat(policy.getRules().isRetryable(first)).isTrue();
	}

	@Test
	void aCauseCycleDoesNotHangTheAbortCheck() {
		BackoffPolicy policy = BackoffPolicy.builder().abortOn(SecurityException.class).build();
		// Not aborted, so the default applies: a RuntimeException is retried.
		assertThat(policy.getRules().isRetryable(cycle())).isTrue();
	}

	/** @return a failure whose cause is a failure whose cause is the first */
	private static RuntimeException cycle() {
		RuntimeException first = new RuntimeException("first");
		RuntimeException second = new RuntimeException("second", first);
		first.initCause(second);
		assertThat(first.getCause().getCause()).isSameAs(first);
		return first;
	}

	@Test
	void retryableByDefaultDecidesWhenNoRetryOnIsGiven() {
		BackoffPolicy policy = BackoffPolicy.builder()
			.retryableByDefault((failure) -> !(failure instanceof FileNotFoundException))
			.build();
		assertThat(policy.getRules().isRetryable(new IOException())).isTrue();
		assertThat(policy.getRules().isRetryable(new FileNotFoundException())).isFalse();
		assertThat(policy.toBuilder().build().getRules().isRetryable(new FileNotFoundException())).isFalse();
	}

	@Test
	void retryOnAndAbortOnOverrideRetryableByDefault() {
		BackoffPolicy retryOn = BackoffPolicy.builder()
			.retryableByDefault((failure) -> false)
			.retryOn(FileNotFoundException.class)
			.build();
		assertThat(retryOn.getRules().isRetryable(new FileNotFoundException())).isTrue();
		BackoffPolicy abortOn = BackoffPolicy.builder()
			.retryableByDefault((failure) -> true)
			.abortOn(FileNotFoundException.class)
			.build();
		assertThat(abortOn.getRules().isRetryable(new FileNotFoundException())).isFalse();
		assertThat(abortOn.getRules().isRetryable(new IOException())).isTrue();
	}

	static class TransientError extends Error {

	}

}
