package dev.backoff.spring.aop;

import java.io.IOException;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.spring.CountingSleeper;
import dev.backoff.spring.EnabledBackoff;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Failures reach the caller through the proxy as they were thrown: the same instance, never
 * wrapped, with the stack trace that points at the throwing method; {@link Error}s are not
 * retried unless a policy names them.
 */
class ProxyTransparencyTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(CountingSleeper.class)
		.withBean(Thrower.class);

	@Test
	void checkedExceptionReachesTheCallerUnchangedAfterRetries() {
		this.runner.run((context) -> {
			Thrower thrower = context.getBean(Thrower.class);
			assertThat(AopUtils.isAopProxy(thrower)).isTrue();
			Throwable thrown = catchThrowable(thrower::failChecked);
			assertThat(thrown).isNotInstanceOf(UndeclaredThrowableException.class)
				.isExactlyInstanceOf(RemoteException.class)
				.isSameAs(thrower.last());
			assertThat(thrower.calls()).isEqualTo(3);
			assertThrownBy(thrown, "failChecked");
		});
	}

	@Test
	void runtimeExceptionReachesTheCallerUnchangedAfterRetries() {
		this.runner.run((context) -> {
			Thrower thrower = context.getBean(Thrower.class);
			Throwable thrown = catchThrowable(thrower::failRuntime);
			assertThat(thrown).isExactlyInstanceOf(IllegalStateException.class).isSameAs(thrower.last());
			assertThat(thrower.calls()).isEqualTo(3);
			assertThrownBy(thrown, "failRuntime");
		});
	}

	@Test
	void errorReachesTheCallerUnchangedWithoutARetry() {
		this.runner.run((context) -> {
			Thrower thrower = context.getBean(Thrower.class);
			Throwable thrown = catchThrowable(thrower::failError);
			assertThat(thrown).isExactlyInstanceOf(DiskFullError.class).isSameAs(thrower.last());
			assertThat(thrower.calls()).isEqualTo(1);
			assertThat(context.getBean(CountingSleeper.class).sleeps()).isZero();
			assertThrownBy(thrown, "failError");
		});
	}

	@Test
	void errorOfACompletableFutureIsNotRetriedAndReachesTheCallerUnwrapped() {
		this.runner.run((context) -> {
			Thrower thrower = context.getBean(Thrower.class);
			CompletableFuture<String> result = thrower.failErrorAsync();
			assertThat(result).failsWithin(TIMEOUT);
			Throwable failure = result.handle((value, ex) -> ex).getNow(null);
			assertThat(failure).isSameAs(thrower.last());
			assertThat(thrower.calls()).isEqualTo(1);
		});
	}

	@Test
	void errorOfAMonoIsNotRetriedAndReachesTheSubscriberUnwrapped() {
		this.runner.run((context) -> {
			Thrower thrower = context.getBean(Thrower.class);
			StepVerifier.create(thrower.failErrorMono())
				.expectErrorSatisfies((ex) -> assertThat(ex).isSameAs(thrower.last()))
				.verify(TIMEOUT);
			assertThat(thrower.calls()).isEqualTo(1);
		});
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void aFinalBackoffMethodIsReportedAtStartUp(CapturedOutput output) {
		this.runner.withBean(FinalMethod.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("@Backoff method FinalMethod.fetch is final, so the proxy cannot intercept it");
		});
	}

	private static void assertThrownBy(Throwable thrown, String methodName) {
		StackTraceElement top = thrown.getStackTrace()[0];
		assertThat(top.getClassName()).isEqualTo(Thrower.class.getName());
		assertThat(top.getMethodName()).isEqualTo(methodName);
	}

	static class RemoteException extends IOException {

		RemoteException() {
			super("remote failed");
		}

	}

	static class DiskFullError extends Error {

		DiskFullError() {
			super("disk full");
		}

	}

	static class Thrower {

		private final AtomicInteger calls = new AtomicInteger();

		private final AtomicReference<Throwable> last = new AtomicReference<>();

		int calls() {
			return this.calls.get();
		}

		Throwable last() {
			return this.last.get();
		}

		@Backoff(maxAttempts = "3", jitter = Jitter.NONE)
		public String failChecked() throws RemoteException {
			this.calls.incrementAndGet();
			RemoteException failure = new RemoteException();
			this.last.set(failure);
			throw failure;
		}

		@Backoff(maxAttempts = "3", jitter = Jitter.NONE)
		public String failRuntime() {
			this.calls.incrementAndGet();
			IllegalStateException failure = new IllegalStateException("state");
			this.last.set(failure);
			throw failure;
		}

		@Backoff(maxAttempts = "3", jitter = Jitter.NONE)
		public String failError() {
			this.calls.incrementAndGet();
			DiskFullError failure = new DiskFullError();
			this.last.set(failure);
			throw failure;
		}

		@Backoff(maxAttempts = "3", baseDelay = "0ms", jitter = Jitter.NONE)
		public CompletableFuture<String> failErrorAsync() {
			this.calls.incrementAndGet();
			DiskFullError failure = new DiskFullError();
			this.last.set(failure);
			return CompletableFuture.failedFuture(failure);
		}

		@Backoff(maxAttempts = "3", baseDelay = "0ms", jitter = Jitter.NONE)
		public Mono<String> failErrorMono() {
			this.calls.incrementAndGet();
			DiskFullError failure = new DiskFullError();
			this.last.set(failure);
			return Mono.error(failure);
		}

	}

	static class FinalMethod {

		@Backoff
		public final String fetch() {
			return "quote";
		}

	}

}
