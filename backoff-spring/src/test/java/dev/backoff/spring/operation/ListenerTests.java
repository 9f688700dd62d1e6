package dev.backoff.spring.operation;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.BackoffListener;
import dev.backoff.Jitter;
import dev.backoff.Outcome;
import dev.backoff.RecordingListener;
import dev.backoff.RecordingSleeper;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.operation.BackoffListenerFactory;
import dev.backoff.spring.operation.BackoffOperation;
import dev.backoff.spring.operation.BackoffOperationSource;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Tests that {@link BackoffListener} beans and {@link BackoffListenerFactory} beans receive
 * the events of {@code @Backoff} methods.
 */
class ListenerTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(RecordingSleeper.class)
		.withBean(Service.class)
		.withPropertyValues("backoff.defaults.jitter=none", "backoff.policies.quotes.max-attempts=2");

	@Test
	void listenerBeanReceivesRetriesAndTheSuccess() {
		this.contextRunner.withBean(RecordingListener.class).run((context) -> {
			Service service = context.getBean(Service.class);
			service.failFirst(2);
			service.call();
			List<Throwable> failures = service.failures();
			assertThat(context.getBean(RecordingListener.class).events()).containsExactly(
					new RecordingListener.RetryScheduled(1, Duration.ofMillis(100), failures.get(0)),
					new RecordingListener.RetryScheduled(2, Duration.ofMillis(200), failures.get(1)),
					new RecordingListener.Success(Outcome.SUCCESS_AFTER_RETRY, 3));
		});
	}

	@Test
	void listenerBeanReceivesASuccessAtTheFirstAttempt() {
		this.contextRunner.withBean(RecordingListener.class).run((context) -> {
			context.getBean(Service.class).call();
			assertThat(context.getBean(RecordingListener.class).events())
				.containsExactly(new RecordingListener.Success(Outcome.SUCCESS, 1));
		});
	}

	@Test
	void listenerBeanReceivesExhaustedWithTheFailureGivenToTheCaller() {
		this.contextRunner.withBean(RecordingListener.class).run((context) -> {
			Service service = context.getBean(Service.class);
			service.failFirst(100);
			assertThatExceptionOfType(IOException.class).isThrownBy(service::call);
			assertThat(context.getBean(RecordingListener.class).ends())
				.containsExactly(new RecordingListener.Failure(Outcome.EXHAUSTED, 3, service.failures().get(2)));
		});
	}

	@Test
	void listenerBeanReceivesNotRetryable() {
		this.contextRunner.withBean(RecordingListener.class)
			.withPropertyValues("backoff.defaults.abort-on=java.io.IOException")
			.run((context) -> {
				Service service = context.getBean(Service.class);
				service.failFirst(100);
				assertThatExceptionOfType(IOException.class).isThrownBy(service::call);
				assertThat(context.getBean(RecordingListener.class).events()).containsExactly(
						new RecordingListener.Failure(Outcome.NOT_RETRYABLE, 1, service.failures().get(0)));
			});
	}

	@Test
	void listenerBeanReceivesExhaustedWithoutFailureWhenRetryIfStillMatches() {
		this.contextRunner.withBean(RecordingListener.class).run((context) -> {
			Service service = context.getBean(Service.class);
			assertThat(service.neverReady()).isEqualTo("NOT_READY");
			assertThat(context.getBean(RecordingListener.class).ends())
				.containsExactly(new RecordingListener.Failure(Outcome.EXHAUSTED, 3, null));
		});
	}

	@Test
	void listenerBeanReceivesASuccessWhenRetryIfCannotBeEvaluated() {
		this.contextRunner.withBean(RecordingListener.class).run((context) -> {
			Service service = context.getBean(Service.class);
			assertThat(service.nullResult()).isNull();
			assertThat(context.getBean(RecordingListener.class).ends())
				.containsExactly(new RecordingListener.Success(Outcome.SUCCESS, 1));
		});
	}

	@Test
	void listenerBeanReceivesTheEventsOfEveryMethod() {
		this.contextRunner.withBean(RecordingListener.class).run((context) -> {
			Service service = context.getBean(Service.class);
			service.call();
			service.quote();
			assertThat(context.getBean(RecordingListener.class).ends()).hasSize(2);
		});
	}

	@Test
	void everyListenerBeanReceivesTheEvents() {
		this.contextRunner.withBean("first", RecordingListener.class)
			.withBean("second", RecordingListener.class)
			.run((context) -> {
				context.getBean(Service.class).call();
				assertThat(context.getBean("first", RecordingListener.class).ends()).hasSize(1);
				assertThat(context.getBean("second", RecordingListener.class).ends()).hasSize(1);
			});
	}

	@Test
	void listenerFactoryIsAskedOnceForEveryMethodWithItsPolicyNameAndMethodTag() {
		this.contextRunner.withBean(RecordingListenerFactory.class).run((context) -> {
			RecordingListenerFactory factory = context.getBean(RecordingListenerFactory.class);
			assertThat(factory.operations()).extracting(BackoffOperation::getMethodTag, BackoffOperation::getPolicyName)
				.containsExactlyInAnyOrder(tuple("Service.call", "defaults"),
						tuple("Service.quote", "quotes"),
						tuple("Service.neverReady", "defaults"),
						tuple("Service.nullResult", "defaults"), tuple("Service.future", "defaults"),
						tuple("Service.mono", "defaults"), tuple("Service.letters", "defaults"));
		});
	}

	@Test
	void listenerFactoryListenerReceivesTheEventsOfItsMethodOnly() {
		this.contextRunner.withBean(RecordingListenerFactory.class).run((context) -> {
			Service service = context.getBean(Service.class);
			service.failFirst(1);
			service.quote();
			RecordingListenerFactory factory = context.getBean(RecordingListenerFactory.class);
			assertThat(factory.listener("Service.quote").events()).containsExactly(
					new RecordingListener.RetryScheduled(1, Duration.ofMillis(100), service.failures().get(0)),
					new RecordingListener.Success(Outcome.SUCCESS_AFTER_RETRY, 2));
			assertThat(factory.listener("Service.call").events()).isEmpty();
		});
	}

	@Test
	void listenerFactoryGetsTheEffectivePolicy() {
		this.contextRunner.withBean(RecordingListenerFactory.class).run((context) -> {
			BackoffOperation quote = context.getBean(RecordingListenerFactory.class).operation("Service.quote");
			assertThat(quote.getPolicy().getSchedule().getMaxAttempts()).isEqualTo(2);
			assertThat(quote.getPolicy().getSchedule().getJitter()).isEqualTo(Jitter.NONE);
			assertThat(quote.getMethod().getName()).isEqualTo("quote");
			assertThat(quote.getTargetClass()).isEqualTo(Service.class);
		});
	}

	@Test
	void listenerReceivesTheEventsOfAnAsynchronousCall() {
		this.contextRunner.withBean(RecordingListener.class).run((context) -> {
			Service service = context.getBean(Service.class);
			service.failFirst(1);
			assertThat(service.future()).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("ok 2");
			assertThat(context.getBean(RecordingListener.class).events()).containsExactly(
					new RecordingListener.RetryScheduled(1, Duration.ZERO, service.failures().get(0)),
					new RecordingListener.Success(Outcome.SUCCESS_AFTER_RETRY, 2));
		});
	}

	@Test
	void listenerReceivesInterruptedWhenAMonoIsCancelledWhileWaiting() {
		this.contextRunner.withBean(RecordingListener.class).run((context) -> {
			Service service = context.getBean(Service.class);
			service.failFirst(100);
			StepVerifier.withVirtualTime(service::mono)
				.expectSubscription()
				.thenAwait(Duration.ofMillis(50))
				.thenCancel()
				.verify(Duration.ofSeconds(10));
			assertThat(context.getBean(RecordingListener.class).ends()).singleElement()
				.isInstanceOfSatisfying(RecordingListener.Failure.class,
						(failure) -> assertThat(failure.outcome()).isEqualTo(Outcome.INTERRUPTED));
			assertThat(service.calls()).isEqualTo(1);
		});
	}

	@Test
	void listenerDoesNotReceiveAFailureWhenAFluxSubscriberTakesWhatItNeeds() {
		this.contextRunner.withBean(RecordingListener.class).run((context) -> {
			StepVerifier.create(context.getBean(Service.class).letters().take(1))
				.expectNext("a")
				.expectComplete()
				.verify(Duration.ofSeconds(10));
			assertThat(context.getBean(RecordingListener.class).ends())
				.noneMatch(RecordingListener.Failure.class::isInstance);
		});
	}

	@Test
	void resolvesAMethodOfAnInterfaceBasedBeanOnce() {
		this.contextRunner.withBean(RecordingListenerFactory.class)
			.withBean(GreeterImpl.class)
			.run((context) -> {
				Greeter greeter = context.getBean(Greeter.class);
				assertThat(AopUtils.isJdkDynamicProxy(greeter)).isTrue();
				assertThat(greeter.greet()).isEqualTo("hello");
				RecordingListenerFactory factory = context.getBean(RecordingListenerFactory.class);
				assertThat(factory.operations()).filteredOn((operation) -> operation.getMethodTag()
					.equals("GreeterImpl.greet")).hasSize(1);
				assertThat(context.getBean(BackoffOperationSource.class).getAll()).filteredOn((operation) -> operation
					.getMethodTag()
					.equals("GreeterImpl.greet")).hasSize(1);
			});
	}

	@Test
	void listenerFactoryListenerReceivesTheEventsOfAnInterfaceBasedBean() {
		this.contextRunner.withBean(RecordingListener.class)
			.withBean(GreeterImpl.class)
			.run((context) -> {
				Greeter greeter = context.getBean(Greeter.class);
				assertThat(greeter.greet()).isEqualTo("hello");
				assertThat(context.getBean(RecordingListener.class).ends())
					.containsExactly(new RecordingListener.Success(Outcome.SUCCESS, 1));
			});
	}

	static class RecordingListenerFactory implements BackoffListenerFactory {

		private final List<BackoffOperation> operations = new CopyOnWriteArrayList<>();

		private final Map<String, RecordingListener> listeners = new ConcurrentHashMap<>();

		@Override
		public BackoffListener create(BackoffOperation operation) {
			this.operations.add(operation);
			return this.listeners.computeIfAbsent(operation.getMethodTag(), (tag) -> new RecordingListener());
		}

		List<BackoffOperation> operations() {
			return this.operations;
		}

		BackoffOperation operation(String methodTag) {
			return this.operations.stream()
				.filter((operation) -> operation.getMethodTag().equals(methodTag))
				.findFirst()
				.orElseThrow();
		}

		RecordingListener listener(String methodTag) {
			return this.listeners.get(methodTag);
		}

	}

	interface Greeter {

		String greet();

	}

	static class GreeterImpl implements Greeter {

		@Override
		@Backoff
		public String greet() {
			return "hello";
		}

	}

	static class Service {

		private final AtomicInteger calls = new AtomicInteger();

		private final List<Throwable> failures = new CopyOnWriteArrayList<>();

		private volatile int failFirst;

		public void failFirst(int failFirst) {
			this.failFirst = failFirst;
		}

		public int calls() {
			return this.calls.get();
		}

		public List<Throwable> failures() {
			return this.failures;
		}

		@Backoff
		public String call() throws IOException {
			return attempt();
		}

		@Backoff("quotes")
		public String quote() throws IOException {
			return attempt();
		}

		@Backoff(retryIf = "#result == 'NOT_READY'")
		public String neverReady() {
			return "NOT_READY";
		}

		@Backoff(retryIf = "#result.length() == 0")
		public String nullResult() {
			return null;
		}

		@Backoff(baseDelay = "0ms", maxDelay = "0ms")
		public CompletableFuture<String> future() {
			try {
				return CompletableFuture.completedFuture(attempt());
			}
			catch (IOException ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}

		@Backoff
		public Mono<String> mono() {
			return Mono.fromCallable(this::attempt);
		}

		@Backoff
		public Flux<String> letters() {
			return Flux.just("a", "b", "c");
		}

		private String attempt() throws IOException {
			int call = this.calls.incrementAndGet();
			if (call <= this.failFirst) {
				IOException failure = new IOException("failure " + call);
				this.failures.add(failure);
				throw failure;
			}
			return "ok " + call;
		}

	}

}
