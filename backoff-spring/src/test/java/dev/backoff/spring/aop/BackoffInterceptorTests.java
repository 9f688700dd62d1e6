package dev.backoff.spring.aop;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.RecordingSleeper;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.aop.BackoffInterceptor;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Tests for {@link BackoffInterceptor} on methods that return a plain value: real proxied
 * beans called under their policies, with a {@link RecordingSleeper} instead of sleeping.
 */
class BackoffInterceptorTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(RecordingSleeper.class)
		.withBean(Service.class);

	@Test
	void retriesCheckedExceptionUntilSuccess() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			service.fail(2, (call) -> new IOException("failure " + call));
			assertThat(service.call()).isEqualTo("ok 3");
			assertThat(service.calls()).isEqualTo(3);
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).hasSize(2);
		});
	}

	@Test
	void doesNotRetryASuccessfulCall() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			assertThat(service.call()).isEqualTo("ok 1");
			assertThat(service.calls()).isEqualTo(1);
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).isEmpty();
		});
	}

	@Test
	void makesMaxAttemptsAttempts() {
		this.contextRunner.withPropertyValues("backoff.defaults.max-attempts=5").run((context) -> {
			Service service = context.getBean(Service.class);
			service.fail(100, (call) -> new IOException("failure " + call));
			assertThatExceptionOfType(IOException.class).isThrownBy(service::call);
			assertThat(service.calls()).isEqualTo(5);
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).hasSize(4);
		});
	}

	@Test
	void makesOneAttemptWhenMaxAttemptsIsOne() {
		this.contextRunner.withPropertyValues("backoff.defaults.max-attempts=1").run((context) -> {
			Service service = context.getBean(Service.class);
			service.fail(1, (call) -> new IOException("failure " + call));
			assertThatExceptionOfType(IOException.class).isThrownBy(service::call);
			assertThat(service.calls()).isEqualTo(1);
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).isEmpty();
		});
	}

	@Test
	void rethrowsTheLastOriginalCheckedExceptionWithEarlierOnesSuppressed() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			service.fail(100, (call) -> new IOException("failure " + call));
			Throwable thrown = catchThrowable(service::call);
			assertThat(thrown).isExactlyInstanceOf(IOException.class).hasMessage("failure 3").hasNoCause();
			assertThat(thrown.getSuppressed()).extracting(Throwable::getMessage)
				.containsExactly("failure 1", "failure 2");
			assertThat(service.failures()).last().isSameAs(thrown);
		});
	}

	@Test
	void rethrowsTheOriginalRuntimeException() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			service.fail(100, (call) -> new IllegalStateException("failure " + call));
			assertThatIllegalStateException().isThrownBy(service::call).withMessage("failure 3").withNoCause();
		});
	}

	@Test
	void doesNotRetryAnErrorByDefault() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			service.fail(100, (call) -> new AssertionError("failure " + call));
			assertThatExceptionOfType(AssertionError.class).isThrownBy(service::call).withMessage("failure 1");
			assertThat(service.calls()).isEqualTo(1);
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).isEmpty();
		});
	}

	@Test
	void retriesAnErrorNamedInRetryOn() {
		this.contextRunner.withPropertyValues("backoff.defaults.retry-on=java.lang.AssertionError").run((context) -> {
			Service service = context.getBean(Service.class);
			service.fail(1, (call) -> new AssertionError("failure " + call));
			assertThat(service.call()).isEqualTo("ok 2");
		});
	}

	@Test
	void retriesAFailureCausedByARetryOnType() {
		this.contextRunner.withPropertyValues("backoff.defaults.retry-on=java.io.IOException").run((context) -> {
			Service service = context.getBean(Service.class);
			service.fail(2, (call) -> new IllegalStateException("wrapper", new IOException("cause " + call)));
			assertThat(service.call()).isEqualTo("ok 3");
			assertThat(service.calls()).isEqualTo(3);
		});
	}

	@Test
	void doesNotRetryAFailureOutsideRetryOn() {
		this.contextRunner.withPropertyValues("backoff.defaults.retry-on=java.io.IOException").run((context) -> {
			Service service = context.getBean(Service.class);
			service.fail(1, (call) -> new IllegalStateException("failure " + call));
			assertThatIllegalStateException().isThrownBy(service::call).withMessage("failure 1");
			assertThat(service.calls()).isEqualTo(1);
		});
	}

	@Test
	void doesNotRetryAFailureCausedByAnAbortOnType() {
		this.contextRunner.withPropertyValues("backoff.defaults.abort-on=java.io.FileNotFoundException")
			.run((context) -> {
				Service service = context.getBean(Service.class);
				service.fail(1, (call) -> new UncheckedIOException(new FileNotFoundException("gone")));
				assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(service::call)
					.withCauseInstanceOf(FileNotFoundException.class);
				assertThat(service.calls()).isEqualTo(1);
			});
	}

	@Test
	void abortOnWinsOverRetryOnThroughTheCauseChain() {
		this.contextRunner
			.withPropertyValues("backoff.defaults.retry-on=java.io.IOException",
					"backoff.defaults.abort-on=java.io.FileNotFoundException")
			.run((context) -> {
				Service service = context.getBean(Service.class);
				service.fail(1, (call) -> new IOException("outer", new FileNotFoundException("gone")));
				assertThatExceptionOfType(IOException.class).isThrownBy(service::call).withMessage("outer");
				assertThat(service.calls()).isEqualTo(1);
			});
	}

	@Test
	void retriesOtherFailuresWhenAbortOnIsSet() {
		this.contextRunner.withPropertyValues("backoff.defaults.abort-on=java.io.FileNotFoundException")
			.run((context) -> {
				Service service = context.getBean(Service.class);
				service.fail(1, (call) -> new IOException("failure " + call));
				assertThat(service.call()).isEqualTo("ok 2");
			});
	}

	@Test
	void stopsRetryingAndRestoresTheInterruptFlagWhenInterruptedWhileWaiting() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			service.fail(100, (call) -> new IOException("failure " + call));
			context.getBean(RecordingSleeper.class).interruptNextSleep();
			Throwable thrown = catchThrowable(service::call);
			boolean interrupted = Thread.interrupted();
			assertThat(thrown).isExactlyInstanceOf(IOException.class).hasMessage("failure 1");
			assertThat(thrown.getSuppressed()).hasOnlyElementsOfType(InterruptedException.class).hasSize(1);
			assertThat(interrupted).isTrue();
			assertThat(service.calls()).isEqualTo(1);
		});
	}

	@Test
	void sleepsTheCappedExponentialDelaysWithoutJitter() {
		this.contextRunner
			.withPropertyValues("backoff.defaults.jitter=none", "backoff.defaults.base-delay=100ms",
					"backoff.defaults.multiplier=2", "backoff.defaults.max-attempts=3")
			.run((context) -> {
				Service service = context.getBean(Service.class);
				service.fail(100, (call) -> new IOException("failure " + call));
				assertThatExceptionOfType(IOException.class).isThrownBy(service::call);
				assertThat(context.getBean(RecordingSleeper.class).sleeps()).containsExactly(Duration.ofMillis(100),
						Duration.ofMillis(200));
			});
	}

	@Test
	void capsTheDelaysAtMaxDelay() {
		this.contextRunner
			.withPropertyValues("backoff.defaults.jitter=none", "backoff.defaults.base-delay=100ms",
					"backoff.defaults.multiplier=10", "backoff.defaults.max-delay=500ms",
					"backoff.defaults.max-attempts=4")
			.run((context) -> {
				Service service = context.getBean(Service.class);
				service.fail(100, (call) -> new IOException("failure " + call));
				assertThatExceptionOfType(IOException.class).isThrownBy(service::call);
				assertThat(context.getBean(RecordingSleeper.class).sleeps()).containsExactly(Duration.ofMillis(100),
						Duration.ofMillis(500), Duration.ofMillis(500));
			});
	}

	@Test
	void drawsFullJitterDelaysBelowTheirCeilings() {
		this.contextRunner
			.withPropertyValues("backoff.defaults.jitter=full", "backoff.defaults.base-delay=100ms",
					"backoff.defaults.max-attempts=6")
			.run((context) -> {
				Service service = context.getBean(Service.class);
				service.fail(100, (call) -> new IOException("failure " + call));
				assertThatExceptionOfType(IOException.class).isThrownBy(service::call);
				List<Duration> sleeps = context.getBean(RecordingSleeper.class).sleeps();
				assertThat(sleeps).hasSize(5);
				for (int retry = 0; retry < sleeps.size(); retry++) {
					assertThat(sleeps.get(retry)).isBetween(Duration.ZERO, Duration.ofMillis(100L << retry));
				}
			});
	}

	@Test
	void drawsEqualJitterDelaysInTheUpperHalfOfTheirCeilings() {
		this.contextRunner
			.withPropertyValues("backoff.defaults.jitter=equal", "backoff.defaults.base-delay=100ms",
					"backoff.defaults.max-attempts=6")
			.run((context) -> {
				Service service = context.getBean(Service.class);
				service.fail(100, (call) -> new IOException("failure " + call));
				assertThatExceptionOfType(IOException.class).isThrownBy(service::call);
				List<Duration> sleeps = context.getBean(RecordingSleeper.class).sleeps();
				assertThat(sleeps).hasSize(5);
				for (int retry = 0; retry < sleeps.size(); retry++) {
					Duration ceiling = Duration.ofMillis(100L << retry);
					assertThat(sleeps.get(retry)).isBetween(ceiling.dividedBy(2), ceiling);
				}
			});
	}

	@Test
	void callsTheFallbackOnceAfterTheFinalFailure() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			service.fail(100, (call) -> new IOException("failure " + call));
			assertThat(service.withFallback("42")).isEqualTo("fallback 42");
			assertThat(service.calls()).isEqualTo(3);
			assertThat(service.fallbacks()).isEqualTo(1);
		});
	}

	@Test
	void passesTheOriginalFailureToTheFallback() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			service.fail(100, (call) -> new IOException("failure " + call));
			assertThat(service.withFailureFallback("42")).isEqualTo("fallback 42 after failure 3");
			assertThat(service.calls()).isEqualTo(3);
			assertThat(service.fallbackFailures()).singleElement().isSameAs(service.failures().get(2));
		});
	}

	@Test
	void doesNotCallTheFallbackOnSuccess() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			service.fail(1, (call) -> new IOException("failure " + call));
			assertThat(service.withFallback("42")).isEqualTo("ok 2");
			assertThat(service.fallbacks()).isZero();
		});
	}

	@Test
	void callsTheFallbackAfterAFailureThatIsNotRetried() {
		this.contextRunner.withPropertyValues("backoff.defaults.abort-on=java.lang.IllegalArgumentException")
			.run((context) -> {
			Service service = context.getBean(Service.class);
			service.fail(100, (call) -> new IllegalArgumentException("failure " + call));
			assertThat(service.withFailureFallback("42")).isEqualTo("fallback 42 after failure 1");
			assertThat(service.calls()).isEqualTo(1);
		});
	}

	@Test
	void rethrowsWhatTheFallbackThrows() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			service.fail(100, (call) -> new IOException("failure " + call));
			assertThatExceptionOfType(FileNotFoundException.class).isThrownBy(() -> service.withFailingFallback("42"))
				.withMessage("fallback failed for 42");
		});
	}

	@Test
	void pollsWithRetryIfOnARecordUntilTheResultIsReady() {
		this.contextRunner.withPropertyValues("backoff.defaults.max-attempts=5")
			.withBean(Poller.class)
			.run((context) -> {
				Poller poller = context.getBean(Poller.class);
				poller.readyAfter(3);
				assertThat(poller.pollRecord()).isEqualTo(new Job("READY", 3));
				assertThat(poller.polls()).isEqualTo(3);
				assertThat(context.getBean(RecordingSleeper.class).sleeps()).hasSize(2);
			});
	}

	@Test
	void pollsWithRetryIfOnAJavaBeanUntilTheResultIsReady() {
		this.contextRunner.withPropertyValues("backoff.defaults.max-attempts=5")
			.withBean(Poller.class)
			.run((context) -> {
				Poller poller = context.getBean(Poller.class);
				poller.readyAfter(4);
				JobBean job = poller.pollBean();
				assertThat(job.getStatus()).isEqualTo("READY");
				assertThat(poller.polls()).isEqualTo(4);
			});
	}

	@Test
	void returnsTheLastResultWhenRetryIfStillMatchesAsAttemptsRunOut() {
		this.contextRunner.withPropertyValues("backoff.defaults.max-attempts=3")
			.withBean(Poller.class)
			.run((context) -> {
				Poller poller = context.getBean(Poller.class);
				poller.readyAfter(100);
				assertThat(poller.pollRecord()).isEqualTo(new Job("NOT_READY", 3));
				assertThat(poller.polls()).isEqualTo(3);
			});
	}

	@Test
	void evaluatesRetryIfAgainstTheResultAsRootObject() {
		this.contextRunner.withPropertyValues("backoff.defaults.max-attempts=5")
			.withBean(Poller.class)
			.run((context) -> {
				Poller poller = context.getBean(Poller.class);
				poller.readyAfter(2);
				assertThat(poller.pollWithRootObject()).isEqualTo(new Job("READY", 2));
				assertThat(poller.polls()).isEqualTo(2);
			});
	}

	@Test
	void doesNotRetryAfterAResultThatDoesNotMatchRetryIf() {
		this.contextRunner.withBean(Poller.class).run((context) -> {
			Poller poller = context.getBean(Poller.class);
			poller.readyAfter(1);
			assertThat(poller.pollRecord()).isEqualTo(new Job("READY", 1));
			assertThat(poller.polls()).isEqualTo(1);
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).isEmpty();
		});
	}

	@Test
	void retriesAVoidMethod() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			service.fail(2, (call) -> new IOException("failure " + call));
			service.run();
			assertThat(service.calls()).isEqualTo(3);
		});
	}

	@Test
	void appliesAnnotationJitterAndDelays() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			service.fail(100, (call) -> new IOException("failure " + call));
			assertThatExceptionOfType(IOException.class).isThrownBy(service::fixedDelay);
			assertThat(service.calls()).isEqualTo(4);
			assertThat(context.getBean(RecordingSleeper.class).sleeps()).containsOnly(Duration.ofMillis(25))
				.hasSize(3);
		});
	}

	@FunctionalInterface
	interface FailureFactory {

		Throwable create(int call) throws Exception;

	}

	static class Service {

		private final AtomicInteger calls = new AtomicInteger();

		private final AtomicInteger fallbacks = new AtomicInteger();

		private final List<Throwable> failures = new CopyOnWriteArrayList<>();

		private final List<Throwable> fallbackFailures = new CopyOnWriteArrayList<>();

		private volatile int failFirst;

		private volatile FailureFactory failure = (call) -> new IOException("failure " + call);

		public void fail(int failFirst, FailureFactory failure) {
			this.failFirst = failFirst;
			this.failure = failure;
		}

		public int calls() {
			return this.calls.get();
		}

		public int fallbacks() {
			return this.fallbacks.get();
		}

		public List<Throwable> failures() {
			return this.failures;
		}

		public List<Throwable> fallbackFailures() {
			return this.fallbackFailures;
		}

		@Backoff
		public String call() throws Exception {
			return attempt();
		}

		@Backoff
		public void run() throws Exception {
			attempt();
		}

		@Backoff(maxAttempts = "4", baseDelay = "25ms", multiplier = "1", jitter = Jitter.NONE)
		public String fixedDelay() throws Exception {
			return attempt();
		}

		@Backoff(fallback = "recover")
		public String withFallback(String id) throws Exception {
			return attempt();
		}

		@Backoff(fallback = "recoverWithFailure")
		public String withFailureFallback(String id) throws Exception {
			return attempt();
		}

		@Backoff(fallback = "failToRecover")
		public String withFailingFallback(String id) throws Exception {
			return attempt();
		}

		String recover(String id) {
			this.fallbacks.incrementAndGet();
			return "fallback " + id;
		}

		String recoverWithFailure(String id, Throwable failure) {
			this.fallbacks.incrementAndGet();
			this.fallbackFailures.add(failure);
			return "fallback " + id + " after " + failure.getMessage();
		}

		String failToRecover(String id, Throwable failure) throws IOException {
			throw new FileNotFoundException("fallback failed for " + id);
		}

		private String attempt() throws Exception {
			int call = this.calls.incrementAndGet();
			if (call <= this.failFirst) {
				Throwable failure = this.failure.create(call);
				this.failures.add(failure);
				if (failure instanceof Error error) {
					throw error;
				}
				throw (Exception) failure;
			}
			return "ok " + call;
		}

	}

	record Job(String status, int poll) {

	}

	static class JobBean {

		private final String status;

		JobBean(String status) {
			this.status = status;
		}

		public String getStatus() {
			return this.status;
		}

	}

	static class Poller {

		private final AtomicInteger polls = new AtomicInteger();

		private volatile int readyAfter;

		public void readyAfter(int polls) {
			this.readyAfter = polls;
		}

		public int polls() {
			return this.polls.get();
		}

		@Backoff(retryIf = "#result.status == 'NOT_READY'")
		public Job pollRecord() {
			int poll = this.polls.incrementAndGet();
			return new Job((poll >= this.readyAfter) ? "READY" : "NOT_READY", poll);
		}

		@Backoff(retryIf = "#result.status == 'NOT_READY'")
		public JobBean pollBean() {
			int poll = this.polls.incrementAndGet();
			return new JobBean((poll >= this.readyAfter) ? "READY" : "NOT_READY");
		}

		@Backoff(retryIf = "status != 'READY'")
		public Job pollWithRootObject() {
			int poll = this.polls.incrementAndGet();
			return new Job((poll >= this.readyAfter) ? "READY" : "NOT_READY", poll);
		}

	}

}
