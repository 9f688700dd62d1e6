package dev.backoff.spring.operation;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.LogRecord;

import dev.backoff.Backoff;
import dev.backoff.BackoffListener;
import dev.backoff.Outcome;
import dev.backoff.spring.CoreWarnings;
import dev.backoff.spring.CountingSleeper;
import dev.backoff.spring.DebugLogging;
import dev.backoff.spring.EnabledBackoff;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Nothing that watches a call can change it: a listener that throws, or a failure that
 * breaks the log line describing it, leaves the caller's result, the retries and the meters
 * as they would be without it, and is reported once.
 */
@ExtendWith(OutputCaptureExtension.class)
class ListenerIsolationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(SimpleMeterRegistry.class)
		.withBean(CountingSleeper.class)
		.withBean(Service.class)
		.withPropertyValues("backoff.defaults.max-attempts=3");

	@Test
	@ExtendWith(DebugLogging.class)
	void aFailureWhoseMessageThrowsIsRetriedAndLoggedAtDebug(CapturedOutput output) {
		this.runner.run((context) -> {
			Service service = context.getBean(Service.class);
			Throwable thrown = catchThrowable(service::failUnreadably);
			assertThat(thrown).isInstanceOf(UnreadableException.class);
			assertThat(service.calls()).isEqualTo(3);
			assertThat(outcomes(context.getBean(MeterRegistry.class), "exhausted")).isEqualTo(1);
			assertThat(output).contains("failed (" + UnreadableException.class.getName()
					+ ": (getMessage() threw java.lang.IllegalStateException)); retrying in");
		});
	}

	@Test
	void aListenerThatThrowsOnEveryEventChangesNeitherResultNorMetersAndIsReportedOnce() {
		List<LogRecord> warnings = CoreWarnings.during(() -> this.runner.withBean(ThrowingListener.class).run((context) -> {
			Service service = context.getBean(Service.class);
			service.failFirst(1);
			assertThat(service.work()).isEqualTo("done");
			assertThat(service.work()).isEqualTo("done");
			assertThat(service.calls()).isEqualTo(3);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(outcomes(meters, "success_after_retry")).isEqualTo(1);
			assertThat(outcomes(meters, "success")).isEqualTo(1);
			assertThat(context.getBean(ThrowingListener.class).events.get()).isEqualTo(3);
		}));
		assertThat(warnings).singleElement()
			.satisfies((warning) -> assertThat(warning.getMessage())
				.startsWith("BackoffListener " + ThrowingListener.class.getName() + " threw from onRetryScheduled"))
			.satisfies((warning) -> assertThat(warning.getThrown()).hasMessage("listener broken"));
	}

	@Test
	void aListenerThatThrowsOnFailureLeavesTheCallerItsOwnFailure() {
		this.runner.withBean(ThrowingListener.class).run((context) -> {
			Service service = context.getBean(Service.class);
			service.failFirst(10);
			Throwable thrown = catchThrowable(service::work);
			assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessage("attempt 3");
			assertThat(outcomes(context.getBean(MeterRegistry.class), "exhausted")).isEqualTo(1);
		});
	}

	@Test
	void aListenerThatThrowsIsReportedOnceForItselfAndTheCallsAreStillObserved() {
		ObservationRegistry registry = ObservationRegistry.create();
		List<String> stopped = new CopyOnWriteArrayList<>();
		registry.observationConfig().observationHandler(new StoppedNames(stopped));
		List<LogRecord> warnings = CoreWarnings.during(() -> this.runner.withBean(ThrowingListener.class)
			.withBean(ObservationRegistry.class, () -> registry)
			.withPropertyValues("backoff.observations.enabled=true")
			.run((context) -> {
				Service service = context.getBean(Service.class);
				service.failFirst(1);
				assertThat(service.work()).isEqualTo("done");
				assertThat(service.work()).isEqualTo("done");
				assertThat(stopped).containsExactly("backoff.attempt", "backoff.attempt", "backoff.call",
						"backoff.attempt", "backoff.call");
			}));
		assertThat(warnings).singleElement()
			.satisfies((warning) -> assertThat(warning.getMessage())
				.startsWith("BackoffListener " + ThrowingListener.class.getName() + " threw"));
	}

	private static double outcomes(MeterRegistry meters, String outcome) {
		var counter = meters.find("backoff.calls").tag("outcome", outcome).counter();
		return (counter != null) ? counter.count() : 0;
	}

	static class Service {

		private final AtomicInteger calls = new AtomicInteger();

		private final AtomicInteger failures = new AtomicInteger();

		int calls() {
			return this.calls.get();
		}

		void failFirst(int count) {
			this.failures.set(count);
		}

		@Backoff
		public String failUnreadably() {
			this.calls.incrementAndGet();
			throw new UnreadableException();
		}

		@Backoff
		public String work() {
			int call = this.calls.incrementAndGet();
			if (this.failures.getAndDecrement() > 0) {
				throw new IllegalStateException("attempt " + call);
			}
			return "done";
		}

	}

	static class UnreadableException extends RuntimeException {

		@Override
		public String getMessage() {
			throw new IllegalStateException("a broken getMessage()");
		}

	}

	static class ThrowingListener implements BackoffListener {

		final AtomicInteger events = new AtomicInteger();

		@Override
		public void onRetryScheduled(int attempt, java.time.Duration delay, @Nullable Throwable failure) {
			this.events.incrementAndGet();
			throw new IllegalStateException("listener broken");
		}

		@Override
		public void onSuccess(Outcome outcome, int attempts) {
			this.events.incrementAndGet();
			throw new IllegalStateException("listener broken");
		}

		@Override
		public void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
			this.events.incrementAndGet();
			throw new IllegalStateException("listener broken");
		}

	}

	/** Records the name of every observation stopped. */
	record StoppedNames(List<String> names) implements ObservationHandler<Observation.Context> {

		@Override
		public void onStop(Observation.Context context) {
			this.names.add(context.getName());
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

}
