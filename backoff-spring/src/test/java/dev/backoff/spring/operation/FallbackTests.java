package dev.backoff.spring.operation;

import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.spring.CountingSleeper;
import dev.backoff.spring.EnabledBackoff;
import dev.backoff.spring.config.BackoffConfigurationException;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.framework.ReflectiveMethodInvocation;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Fallbacks answer for what they should and nothing else: not for a failure an enclosing
 * call will retry, not for an {@link Error} unless named; called through the proxy, so their
 * own advice applies and a target-less interface client's default method can answer; and
 * their generic return type is checked at start-up.
 */
class FallbackTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(EnabledBackoff.class)
		.withBean(CountingSleeper.class)
		.withPropertyValues("backoff.defaults.max-attempts=3", "backoff.policies.outer.max-attempts=3");

	@Test
	void anInnerFallbackLeavesAFailureTheOuterCallRetriesToTheOuterCall() {
		this.runner.withBean(Inner.class).withBean(Outer.class).run((context) -> {
			Inner inner = context.getBean(Inner.class);
			Outer outer = context.getBean(Outer.class);
			inner.failFirst(2);
			assertThat(outer.place()).isEqualTo("placed fresh");
			assertThat(inner.calls()).isEqualTo(3);
			assertThat(outer.calls()).isEqualTo(3);
			// Alone, the inner call retries by itself.
			inner.failFirst(2);
			assertThat(inner.fetch()).isEqualTo("fresh");
		});
	}

	@Test
	void anInnerAsyncFallbackLeavesAFailureTheOuterCallRetriesToTheOuterCall() {
		this.runner.withBean(Inner.class).withBean(Outer.class).run((context) -> {
			Inner inner = context.getBean(Inner.class);
			inner.failFirst(2);
			assertThat(context.getBean(Outer.class).placeAsync()).isEqualTo("placed fresh");
			assertThat(inner.calls()).isEqualTo(3);
		});
	}

	@Test
	void anInnerMonoFallbackLeavesAFailureTheOuterCallRetriesToTheOuterCall() {
		this.runner.withBean(Inner.class).withBean(Outer.class).run((context) -> {
			Inner inner = context.getBean(Inner.class);
			inner.failFirst(2);
			assertThat(context.getBean(Outer.class).placeMono()).isEqualTo("placed fresh");
			assertThat(inner.calls()).isEqualTo(3);
		});
	}

	@Test
	void anInnerFallbackStillAnswersWhenTheOuterCallWouldNotRetry() {
		this.runner.withBean(Inner.class).withBean(Outer.class)
			.withPropertyValues("backoff.policies.outer.abort-on=java.io.IOException")
			.run((context) -> {
				Inner inner = context.getBean(Inner.class);
				inner.failFirst(10);
				assertThat(context.getBean(Outer.class).placeUnderAbortingPolicy()).isEqualTo("placed cached");
				assertThat(inner.calls()).isEqualTo(3);
			});
	}

	@Test
	void anErrorReachesTheCallerRatherThanTheFallback() {
		this.runner.withBean(Errors.class).run((context) -> {
			Errors errors = context.getBean(Errors.class);
			assertThat(catchThrowable(() -> errors.outOfMemory("7"))).isInstanceOf(OutOfMemoryError.class)
				.hasMessage("simulated");
			assertThat(catchThrowable(() -> errors.stackOverflowWithThrowableFallback("7")))
				.isInstanceOf(StackOverflowError.class);
			assertThat(errors.fallbacks()).isZero();
		});
	}

	@Test
	void anErrorNamedByTheFallbacksParameterIsAnsweredForAndOthersAreNot() {
		this.runner.withBean(Errors.class).run((context) -> {
			Errors errors = context.getBean(Errors.class);
			assertThat(errors.stackOverflowWithNamedFallback("7")).isEqualTo("shallow 7");
			assertThat(catchThrowable(() -> errors.ioWithNamedFallback("7"))).isInstanceOf(IOException.class);
			assertThat(errors.fallbacks()).isEqualTo(1);
		});
	}

	@Test
	void aPublicFallbackIsCalledThroughTheProxySoItsOwnAdviceApplies() {
		this.runner.withBean(Advised.class).run((context) -> {
			Advised advised = context.getBean(Advised.class);
			assertThat(advised.quote("7")).isEqualTo("cached 7 after 2 tries");
		});
	}

	@Test
	void aDefaultMethodFallbackOfAnInterfaceClientWithoutTargetAnswers() {
		this.runner.withBean(QuoteClient.class, FallbackTests::targetlessClient).run((context) -> {
			QuoteClient client = context.getBean(QuoteClient.class);
			assertThat(client.quote("7")).isEqualTo("cached 7");
			assertThat(clientCalls.get()).isEqualTo(3);
		});
	}

	@Test
	void aFallbackWhoseGenericReturnTypeDiffersStopsStartUp() {
		this.runner.withBean(WrongGenerics.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(BackoffConfigurationException.class)
				.hasMessageContaining("@Backoff(fallback) on WrongGenerics.counts")
				.hasMessageContaining("java.util.Map<java.util.List<java.lang.String>, java.lang.Byte>");
		});
	}

	@Test
	void aFallbackWithTheSameGenericReturnTypeIsAccepted() {
		this.runner.withBean(RightGenerics.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(RightGenerics.class).counts()).containsEntry(List.of("a"), (byte) 1);
		});
	}

	private static final AtomicInteger clientCalls = new AtomicInteger();

	/** Built as {@code HttpServiceProxyFactory} builds a client: a proxy with no target object. */
	static QuoteClient targetlessClient() {
		clientCalls.set(0);
		ProxyFactory factory = new ProxyFactory();
		factory.addInterface(QuoteClient.class);
		factory.addAdvice((MethodInterceptor) (invocation) -> {
			if (invocation.getMethod().isDefault()) {
				return InvocationHandler.invokeDefault(((ReflectiveMethodInvocation) invocation).getProxy(),
						invocation.getMethod(), invocation.getArguments());
			}
			clientCalls.incrementAndGet();
			throw new IOException("connection reset");
		});
		return (QuoteClient) factory.getProxy(FallbackTests.class.getClassLoader());
	}

	public interface QuoteClient {

		@Backoff(fallback = "cached")
		String quote(String id);

		default String cached(String id) {
			return "cached " + id;
		}

	}

	static class Inner {

		private final AtomicInteger calls = new AtomicInteger();

		private final AtomicInteger failures = new AtomicInteger();

		void failFirst(int count) {
			this.calls.set(0);
			this.failures.set(count);
		}

		int calls() {
			return this.calls.get();
		}

		@Backoff(fallback = "cached")
		public String fetch() throws IOException {
			this.calls.incrementAndGet();
			if (this.failures.getAndDecrement() > 0) {
				throw new IOException("down");
			}
			return "fresh";
		}

		@Backoff(fallback = "cachedAsync")
		public CompletableFuture<String> fetchAsync() {
			this.calls.incrementAndGet();
			if (this.failures.getAndDecrement() > 0) {
				return CompletableFuture.failedFuture(new IOException("down"));
			}
			return CompletableFuture.completedFuture("fresh");
		}

		@Backoff(fallback = "cachedMono")
		public Mono<String> fetchMono() {
			return Mono.fromCallable(this::fetchDirectly);
		}

		String fetchDirectly() throws IOException {
			this.calls.incrementAndGet();
			if (this.failures.getAndDecrement() > 0) {
				throw new IOException("down");
			}
			return "fresh";
		}

		String cached() {
			return "cached";
		}

		CompletableFuture<String> cachedAsync() {
			return CompletableFuture.completedFuture("cached");
		}

		Mono<String> cachedMono() {
			return Mono.just("cached");
		}

	}

	static class Outer {

		private final Inner inner;

		private final AtomicInteger calls = new AtomicInteger();

		Outer(Inner inner) {
			this.inner = inner;
		}

		int calls() {
			return this.calls.get();
		}

		@Backoff
		public String place() throws IOException {
			this.calls.incrementAndGet();
			return "placed " + this.inner.fetch();
		}

		@Backoff
		public String placeAsync() {
			return "placed " + this.inner.fetchAsync().join();
		}

		@Backoff
		public String placeMono() {
			return "placed " + this.inner.fetchMono().block();
		}

		@Backoff("outer")
		public String placeUnderAbortingPolicy() throws IOException {
			return "placed " + this.inner.fetch();
		}

	}

	static class Errors {

		private final AtomicInteger fallbacks = new AtomicInteger();

		int fallbacks() {
			return this.fallbacks.get();
		}

		@Backoff(fallback = "plain")
		public String outOfMemory(String id) {
			throw new OutOfMemoryError("simulated");
		}

		@Backoff(fallback = "anyThrowable")
		public String stackOverflowWithThrowableFallback(String id) {
			throw new StackOverflowError();
		}

		@Backoff(fallback = "shallow")
		public String stackOverflowWithNamedFallback(String id) {
			throw new StackOverflowError();
		}

		@Backoff(fallback = "shallow")
		public String ioWithNamedFallback(String id) throws IOException {
			throw new IOException("not named by the fallback");
		}

		String plain(String id) {
			this.fallbacks.incrementAndGet();
			return "plain " + id;
		}

		String anyThrowable(String id, Throwable failure) {
			this.fallbacks.incrementAndGet();
			return "any " + id;
		}

		String shallow(String id, StackOverflowError failure) {
			this.fallbacks.incrementAndGet();
			return "shallow " + id;
		}

	}

	static class Advised {

		private final AtomicInteger cachedCalls = new AtomicInteger();

		@Backoff(fallback = "cached")
		public String quote(String id) throws IOException {
			throw new IOException("down");
		}

		/** Its own {@code @Backoff} is advice that only applies through the proxy. */
		@Backoff
		public String cached(String id) {
			int call = this.cachedCalls.incrementAndGet();
			if (call < 2) {
				throw new IllegalStateException("cache warming up");
			}
			return "cached " + id + " after " + call + " tries";
		}

	}

	static class WrongGenerics {

		@Backoff(fallback = "integers")
		public Map<List<String>, Byte> counts() {
			throw new IllegalStateException("down");
		}

		Map<List<String>, Integer> integers() {
			return Map.of(List.of("a"), 1);
		}

	}

	static class RightGenerics {

		@Backoff(fallback = "bytes")
		public Map<List<String>, Byte> counts() {
			throw new IllegalStateException("down");
		}

		Map<List<String>, Byte> bytes() {
			return Map.of(List.of("a"), (byte) 1);
		}

	}

}
