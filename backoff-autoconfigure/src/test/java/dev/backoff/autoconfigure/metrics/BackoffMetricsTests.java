package dev.backoff.autoconfigure.metrics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.sun.management.ThreadMXBean;
import dev.backoff.Backoff;
import dev.backoff.BackoffListener;
import dev.backoff.Outcome;
import dev.backoff.RecordingSleeper;
import dev.backoff.RetryAfter;
import dev.backoff.Sleeper;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.spring.metrics.BackoffMetrics;
import dev.backoff.spring.operation.BackoffOperation;
import dev.backoff.spring.operation.BackoffOperationSource;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.logging.LoggingMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The {@code backoff.*} meters, recorded into a real {@link SimpleMeterRegistry} for scripted
 * failure sequences, with a recording sleeper.
 */
class BackoffMetricsTests {

	/** The outcomes but the two successes and a local rejection, registered at 0 only where the policy has admission. */
	private static final int FAILURES = Outcome.values().length - 3;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class))
		.withUserConfiguration(ScriptedConfiguration.class)
		.withPropertyValues("backoff.policies.quotes.max-attempts=4", "backoff.policies.quotes.jitter=none",
				"backoff.policies.quotes.base-delay=100ms", "backoff.policies.quotes.multiplier=2");

	/** The same method recorded into a real Prometheus registry, scraped as Prometheus reads it. */
	private final ApplicationContextRunner prometheus = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class))
		.withBean(PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
		.withBean(RecordingSleeper.class)
		.withBean(Quotes.class)
		.withPropertyValues("backoff.policies.quotes.max-attempts=2");

	@Test
	void registersNoMeterForAMethodBeforeItsFirstCall() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(BackoffMetrics.class);
			assertThat(meters(context.getBean(MeterRegistry.class))).isEmpty();
		});
	}

	@Test
	void countsASuccessOnTheFirstAttemptOnlyInCalls() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.script("ok");
			assertThat(quotes.fetch()).isEqualTo("ok");
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(count(registry, "success")).isEqualTo(1);
			// Only this outcome's counter: a SimpleMeterRegistry needs no failure counters at 0
			// (nothing reads increases from it); no summary for success, no timer and no retries
			// counter before the first wait.
			assertThat(meters(registry)).containsExactly("backoff.calls success");
			assertThat(context.getBean(BackoffMetrics.class).registersFailuresAtZero()).isFalse();
		});
	}

	@Test
	void registersTheFailureCountersAtZeroWhenAskedToInAnyRegistry() {
		this.runner.withPropertyValues("backoff.metrics.failures-at-zero=true").run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.script("ok");
			quotes.fetch();
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			// With the failures, the timer of the waits a server may set: Quotes.fetch retries.
			assertThat(meters(registry)).containsExactlyInAnyOrderElementsOf(
					callsOfEveryFailure("backoff.calls success", "backoff.retry.after"));
			assertThat(count(registry, "exhausted")).isZero();
			assertThat(count(registry, "success")).isEqualTo(1);
		});
	}

	@Test
	void registersTheFailureCountersAtZeroOnlyForARegistryThatReportsTotals() {
		SimpleMeterRegistry simple = new SimpleMeterRegistry();
		PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
		MeterRegistry step = new LoggingMeterRegistry();
		assertThat(new BackoffMetrics(simple).registersFailuresAtZero()).isFalse();
		assertThat(new BackoffMetrics(step).registersFailuresAtZero()).isFalse();
		assertThat(new BackoffMetrics(prometheus).registersFailuresAtZero()).isTrue();
		CompositeMeterRegistry composite = new CompositeMeterRegistry();
		assertThat(new BackoffMetrics(composite).registersFailuresAtZero()).isFalse();
		composite.add(simple).add(step);
		assertThat(new BackoffMetrics(composite).registersFailuresAtZero()).isFalse();
		composite.add(new CompositeMeterRegistry().add(prometheus));
		assertThat(new BackoffMetrics(composite).registersFailuresAtZero()).isTrue();
		// The setting wins either way.
		assertThat(new BackoffMetrics(simple, true).registersFailuresAtZero()).isTrue();
		assertThat(new BackoffMetrics(prometheus, false).registersFailuresAtZero()).isFalse();
		step.close();
	}

	@Test
	void leavesTheFailureCountersOutOfPrometheusWhenAskedTo() {
		this.prometheus.withPropertyValues("backoff.metrics.failures-at-zero=false")
			.run((context) -> {
				Quotes quotes = context.getBean(Quotes.class);
				quotes.script("ok");
				quotes.fetch();
				assertThat(callsSeries(context.getBean(PrometheusMeterRegistry.class))).containsExactly(
						"backoff_calls_total{method=\"Quotes.fetch\",outcome=\"success\",policy=\"quotes\"} 1.0");
			});
	}

	@Test
	void aSecondSuccessRegistersNoFurtherMeter() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			quotes.script("ok");
			quotes.fetch();
			List<Meter> afterFirst = registry.getMeters();
			quotes.script("ok");
			quotes.fetch();
			assertThat(registry.getMeters()).containsExactlyInAnyOrderElementsOf(afterFirst);
			assertThat(count(registry, "success")).isEqualTo(2);
		});
	}

	@Test
	void registersTheHedgesAndTheRetryAfterTimerAtZeroWithTheFailureCountersInThePrometheusScrape() {
		this.prometheus.withBean(Reads.class)
			.withPropertyValues("backoff.policies.reads.max-attempts=3", "backoff.policies.once.max-attempts=1")
			.run((context) -> {
				PrometheusMeterRegistry registry = context.getBean(PrometheusMeterRegistry.class);
				Quotes quotes = context.getBean(Quotes.class);
				quotes.script("ok");
				quotes.fetch();
				Reads reads = context.getBean(Reads.class);
				assertThat(reads.read().join()).isEqualTo("ok");
				assertThat(reads.once()).isEqualTo("ok");
				List<String> scrape = registry.scrape().lines().filter((line) -> !line.startsWith("#")).toList();
				// After one plain success each: a first hedge, a first server-set wait, will be an increase.
				assertThat(scrape).contains(
						"backoff_hedges_total{event=\"sent\",method=\"Reads.read\",policy=\"reads\"} 0.0",
						"backoff_hedges_total{event=\"won\",method=\"Reads.read\",policy=\"reads\"} 0.0",
						"backoff_hedges_total{event=\"cancelled\",method=\"Reads.read\",policy=\"reads\"} 0.0",
						"backoff_hedges_total{event=\"failed\",method=\"Reads.read\",policy=\"reads\"} 0.0",
						"backoff_hedges_total{event=\"held_back\",method=\"Reads.read\",policy=\"reads\"} 0.0",
						"backoff_retry_after_seconds_count{method=\"Reads.read\",policy=\"reads\"} 0",
						"backoff_retry_after_seconds_count{method=\"Quotes.fetch\",policy=\"quotes\"} 0");
				// Only where they can happen: Quotes.fetch cannot hedge, Reads.once never retries.
				assertThat(scrape).noneMatch((line) -> line.startsWith("backoff_hedges_total{")
						&& line.contains("Quotes.fetch"))
					.noneMatch((line) -> line.startsWith("backoff_retry_after") && line.contains("Reads.once"))
					.anyMatch((line) -> line.startsWith("backoff_calls_total{") && line.contains("Reads.once"));
				// No summary for a success without hedges.
				assertThat(scrape).noneMatch((line) -> line.startsWith("backoff_attempts"));
			});
	}

	@Test
	void aFailureAfterAMethodsFirstCallIsAnIncreaseInThePrometheusScrape() {
		this.prometheus.run((context) -> {
			PrometheusMeterRegistry registry = context.getBean(PrometheusMeterRegistry.class);
			Quotes quotes = context.getBean(Quotes.class);
			assertThat(callsSeries(registry)).isEmpty();
			quotes.script("ok");
			quotes.fetch();
			// Scraped before the failure: the series it increments is already there, at 0.
			List<String> beforeFailure = callsSeries(registry);
			quotes.script("io", "io");
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(quotes::fetch);
			List<String> afterFailure = callsSeries(registry);
			System.out.printf("Backoff first failure, scraped before:%n%s%nand after:%n%s%n",
					String.join("\n", beforeFailure), String.join("\n", afterFailure));
			String exhausted = "backoff_calls_total{method=\"Quotes.fetch\",outcome=\"exhausted\",policy=\"quotes\"}";
			// Every failure outcome at 0, and the success that the first call was.
			assertThat(beforeFailure).hasSize(FAILURES + 1)
				.contains(exhausted + " 0.0",
						"backoff_calls_total{method=\"Quotes.fetch\",outcome=\"nested\",policy=\"quotes\"} 0.0",
						"backoff_calls_total{method=\"Quotes.fetch\",outcome=\"success\",policy=\"quotes\"} 1.0")
				.noneMatch((series) -> series.contains("success_after_retry"));
			assertThat(afterFailure).hasSize(FAILURES + 1).contains(exhausted + " 1.0");
		});
	}

	@Test
	void recordingAnOutcomeAfterItsFirstTimeAllocatesNothing() {
		ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
		assumeThat(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled()).isTrue();
		this.runner.run((context) -> {
			BackoffOperation operation = context.getBean(BackoffOperationSource.class)
				.getAll()
				.stream()
				.filter((candidate) -> candidate.getMethodTag().equals("Quotes.fetch"))
				.findFirst()
				.orElseThrow();
			BackoffListener listener = context.getBean(BackoffMetrics.class).create(operation);
			int calls = 100_000;
			for (int i = 0; i < calls; i++) {
				listener.onSuccess(Outcome.SUCCESS, 1);
				listener.onSuccess(Outcome.SUCCESS_AFTER_RETRY, 2);
			}
			long before = threads.getCurrentThreadAllocatedBytes();
			for (int i = 0; i < calls; i++) {
				listener.onSuccess(Outcome.SUCCESS, 1);
				listener.onSuccess(Outcome.SUCCESS_AFTER_RETRY, 2);
			}
			long allocated = threads.getCurrentThreadAllocatedBytes() - before;
			// Less than a byte a call: nothing is allocated per call, only by the measurement.
			assertThat(allocated).isLessThan(calls);
			assertThat(count(context.getBean(MeterRegistry.class), "success")).isEqualTo(2 * calls);
		});
	}

	@Test
	void recordsRetriesDelaysAndAttemptsOfASuccessAfterRetry() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.script("io", "state", "ok");
			assertThat(quotes.fetch()).isEqualTo("ok");
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(count(registry, "success_after_retry")).isEqualTo(1);
			assertThat(registry.get(BackoffMetrics.RETRIES).tag("exception", "UncheckedIOException").counter().count())
				.isEqualTo(1);
			assertThat(registry.get(BackoffMetrics.RETRIES).tag("exception", "IllegalStateException").counter().count())
				.isEqualTo(1);
			assertThat(registry.get(BackoffMetrics.DELAY).timer().count()).isEqualTo(2);
			assertThat(registry.get(BackoffMetrics.DELAY).timer().totalTime(java.util.concurrent.TimeUnit.MILLISECONDS))
				.isEqualTo(300.0);
			assertThat(context.getBean(RecordingSleeper.class).sleeps)
				.containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
			assertThat(registry.get(BackoffMetrics.ATTEMPTS).tag("outcome", "success_after_retry").summary().totalAmount())
				.isEqualTo(3);
			assertThat(meters(registry)).containsExactlyInAnyOrder("backoff.calls success_after_retry",
					"backoff.attempts success_after_retry", "backoff.delay", "backoff.delay.ceiling",
					"backoff.retries UncheckedIOException",
					"backoff.retries IllegalStateException");
		});
	}

	@Test
	void recordsTheWaitsThatAServersRetryAfterHintSetApart() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.script("hint 2s", "hint 10ms", "ok");
			assertThat(quotes.fetch()).isEqualTo("ok");
			// The server's 2s is longer than the policy's first 100ms; its 10ms is shorter than the second 200ms.
			assertThat(context.getBean(RecordingSleeper.class).sleeps)
				.containsExactly(Duration.ofSeconds(2), Duration.ofMillis(200));
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get(BackoffMetrics.DELAY).timer().count()).isEqualTo(2);
			Timer retryAfter = registry.get(BackoffMetrics.RETRY_AFTER).tag("method", "Quotes.fetch").timer();
			assertThat(retryAfter.count()).isOne();
			assertThat(retryAfter.max(java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(2.0);
			assertThat(meters(registry)).contains("backoff.retry.after");
		});
	}

	@Test
	void countsAnExhaustedCallWithItsAttempts() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.script("io", "io", "io", "io");
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(quotes::fetch);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(count(registry, "exhausted")).isEqualTo(1);
			assertThat(registry.get(BackoffMetrics.RETRIES).tag("exception", "UncheckedIOException").counter().count())
				.isEqualTo(3);
			assertThat(registry.get(BackoffMetrics.ATTEMPTS).tag("outcome", "exhausted").summary().totalAmount())
				.isEqualTo(4);
			assertThat(registry.get(BackoffMetrics.DELAY).timer().totalTime(java.util.concurrent.TimeUnit.MILLISECONDS))
				.isEqualTo(700.0);
		});
	}

	@Test
	void countsANotRetryableFailure() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.script("error");
			assertThatExceptionOfType(AssertionError.class).isThrownBy(quotes::fetch);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(count(registry, "not_retryable")).isEqualTo(1);
			assertThat(registry.get(BackoffMetrics.ATTEMPTS).tag("outcome", "not_retryable").summary().count())
				.isEqualTo(1);
			assertThat(meters(registry)).containsExactlyInAnyOrder("backoff.calls not_retryable",
					"backoff.attempts not_retryable");
		});
	}

	@Test
	void sumOfCallsEqualsTheNumberOfCalls() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			for (int i = 0; i < 10; i++) {
				quotes.script((i % 2 == 0) ? new String[] { "io", "ok" } : new String[] { "ok" });
				quotes.fetch();
			}
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			double calls = registry.find(BackoffMetrics.CALLS).counters().stream().mapToDouble((c) -> c.count()).sum();
			assertThat(calls).isEqualTo(10);
			assertThat(count(registry, "success")).isEqualTo(5);
			assertThat(count(registry, "success_after_retry")).isEqualTo(5);
		});
	}

	@Test
	void tagsTakeOnlyBoundedValues() {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			quotes.script("io", "state", "ok");
			quotes.fetch();
			quotes.script("io", "io", "io", "io");
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(quotes::fetch);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			List<Tag> tags = registry.getMeters()
				.stream()
				.filter((meter) -> meter.getId().getName().startsWith("backoff."))
				.map(Meter::getId)
				.flatMap((id) -> id.getTags().stream())
				.toList();
			assertThat(tags.stream().map(Tag::getKey).collect(Collectors.toSet()))
				.containsOnly("policy", "method", "outcome", "exception");
			assertThat(tags).filteredOn((tag) -> tag.getKey().equals("policy")).extracting(Tag::getValue).containsOnly("quotes");
			assertThat(tags).filteredOn((tag) -> tag.getKey().equals("method"))
				.extracting(Tag::getValue)
				.containsOnly("Quotes.fetch");
			assertThat(tags).filteredOn((tag) -> tag.getKey().equals("exception"))
				.extracting(Tag::getValue)
				.containsOnly("UncheckedIOException", "IllegalStateException");
			// The secret message of the failure never becomes a tag.
			assertThat(tags).noneMatch((tag) -> tag.getValue().contains("secret"));
		});
	}

	@Test
	void backsOffWhenMetricsAreDisabled() {
		this.runner.withPropertyValues("backoff.metrics.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(BackoffMetrics.class));
	}

	@Test
	void backsOffWithoutAMeterRegistry() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(BackoffMetrics.class));
	}

	@Test
	void backsOffWithoutMicrometer() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(BackoffMetrics.class));
	}

	private static double count(MeterRegistry registry, String outcome) {
		return registry.get(BackoffMetrics.CALLS).tag("outcome", outcome).counter().count();
	}

	/** The lines of the {@code backoff_calls_total} series in a Prometheus scrape. */
	private static List<String> callsSeries(PrometheusMeterRegistry registry) {
		return registry.scrape().lines().filter((line) -> line.startsWith("backoff_calls_total{")).toList();
	}

	/** The {@code backoff.calls} meter of every failure outcome, as {@link #meters} names them, and {@code others}. */
	private static List<String> callsOfEveryFailure(String... others) {
		return Stream.concat(Stream.of(Outcome.values())
			.filter((outcome) -> !outcome.isSuccess() && outcome != Outcome.ADMISSION_REJECTED)
			.map((outcome) -> "backoff.calls " + outcome.tagValue()), Stream.of(others)).toList();
	}

	/** The meters of {@code Quotes.fetch}, each as its name and its outcome or exception. */
	private static List<String> meters(MeterRegistry registry) {
		return registry.getMeters()
			.stream()
			.map(Meter::getId)
			.filter((id) -> "Quotes.fetch".equals(id.getTag("method")))
			.map((id) -> Stream.of(id.getName(), id.getTag("outcome"), id.getTag("exception"))
				.filter(Objects::nonNull)
				.collect(Collectors.joining(" ")))
			.toList();
	}

	@Configuration(proxyBeanMethods = false)
	static class ScriptedConfiguration {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		RecordingSleeper recordingSleeper() {
			return new RecordingSleeper();
		}

		@Bean
		Quotes quotes() {
			return new Quotes();
		}

	}

	static class RecordingSleeper implements Sleeper {

		final List<Duration> sleeps = new CopyOnWriteArrayList<>();

		@Override
		public void sleep(Duration delay) {
			this.sleeps.add(delay);
		}

	}

	/** A failure whose server asked to wait: its {@code Retry-After}. */
	static class Throttled extends RuntimeException implements RetryAfter {

		private final Duration hint;

		Throttled(Duration hint) {
			super("throttled");
			this.hint = hint;
		}

		@Override
		public Duration getRetryAfter() {
			return this.hint;
		}

	}

	static class Reads {

		@Backoff(value = "reads", hedgeDelay = "50ms", maxHedges = "1")
		public CompletableFuture<String> read() {
			return CompletableFuture.completedFuture("ok");
		}

		@Backoff("once")
		public String once() {
			return "ok";
		}

	}

	/** Plays a script of attempt results: "ok", or a failure kind. */
	static class Quotes {

		private final Deque<String> script = new ArrayDeque<>();

		public void script(String... steps) {
			this.script.clear();
			this.script.addAll(List.of(steps));
		}

		@Backoff("quotes")
		public String fetch() {
			String step = this.script.poll();
			switch (step) {
				case "io" -> throw new UncheckedIOException(new IOException("secret-token-123"));
				case "state" -> throw new IllegalStateException("secret-token-456");
				case "error" -> throw new AssertionError("secret-token-789");
				case "hint 2s" -> throw new Throttled(Duration.ofSeconds(2));
				case "hint 10ms" -> throw new Throttled(Duration.ofMillis(10));
				default -> {
					return step;
				}
			}
		}

	}

}
