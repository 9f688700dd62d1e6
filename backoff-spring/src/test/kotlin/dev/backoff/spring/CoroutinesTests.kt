package dev.backoff.spring

import java.time.Duration
import java.util.concurrent.TimeoutException
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger

import dev.backoff.Backoff
import dev.backoff.Jitter
import dev.backoff.RecordingListener
import dev.backoff.Sleeper
import dev.backoff.spring.config.BackoffConfigurationException
import io.micrometer.core.instrument.MeterRegistry
import io.micrometer.core.instrument.simple.SimpleMeterRegistry
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Deferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.catchThrowable
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import reactor.test.scheduler.VirtualTimeScheduler

import org.springframework.aop.support.AopUtils
import org.springframework.context.annotation.AnnotationConfigApplicationContext
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.mock.env.MockPropertySource

/**
 * Kotlin's `suspend` functions and `Flow` with `@Backoff`, in a plain Spring application
 * ([EnableBackoff] in an [AnnotationConfigApplicationContext]). The waits are Reactor delays
 * in virtual time, and the callers run on [Dispatchers.Unconfined]: everything happens on the
 * test's thread, an attempt as soon as its wait is over, and no test sleeps.
 */
class CoroutinesTests {

	private lateinit var time: VirtualTimeScheduler

	/** Unconfined: a call runs on the test's thread until it waits. */
	private val callers = CoroutineScope(Dispatchers.Unconfined)

	@BeforeEach
	fun virtualTime() {
		this.time = VirtualTimeScheduler.getOrSet()
	}

	@AfterEach
	fun realTime() {
		VirtualTimeScheduler.reset()
	}

	@Test
	fun `a suspend fun is retried with the named policy's waits without blocking the caller`() {
		start().use { context ->
			val quotes = context.getBean(Quotes::class.java)
			assertThat(AopUtils.isAopProxy(quotes)).isTrue()
			val call = this.callers.async { quotes.flaky("ACME") }
			// The first attempt failed; the call waits without holding the test's thread.
			assertThat(quotes.flakyCalls()).isEqualTo(1)
			assertThat(call.isCompleted).isFalse()
			this.time.advanceTimeBy(Duration.ofMillis(199))
			assertThat(quotes.flakyCalls()).isEqualTo(1)
			this.time.advanceTimeBy(Duration.ofMillis(1))
			assertThat(quotes.flakyCalls()).isEqualTo(2)
			this.time.advanceTimeBy(Duration.ofMillis(400))
			assertThat(call.value()).isEqualTo("ACME after 3 attempts")
			val listener = context.getBean(RecordingListener::class.java)
			assertThat(listener.delays()).containsExactly(Duration.ofMillis(200), Duration.ofMillis(400))
			val registry = context.getBean(MeterRegistry::class.java)
			assertThat(registry.get("backoff.calls").tags("method", "Quotes.flaky", "outcome", "success_after_retry")
				.counter().count()).isEqualTo(1.0)
			assertThat(registry.get("backoff.retries").tag("method", "Quotes.flaky").counter().count()).isEqualTo(2.0)
		}
	}

	@Test
	fun `with the instant sleeper of @InstantBackoff a suspend fun retries without waiting`() {
		val context = AnnotationConfigApplicationContext()
		context.environment.propertySources.addFirst(MockPropertySource()
			.withProperty("backoff.policies.quotes.max-attempts", "3")
			.withProperty("backoff.policies.quotes.base-delay", "200ms"))
		// What backoff-test's @InstantBackoff defines: waits computed and reported, not waited.
		context.registerBean("backoffSleeper", Sleeper::class.java, java.util.function.Supplier { Sleeper.INSTANT })
		context.register(Application::class.java)
		context.refresh()
		context.use {
			val quotes = it.getBean(Quotes::class.java)
			val call = this.callers.async { quotes.flaky("ACME") }
			// No virtual time has passed.
			assertThat(call.value()).isEqualTo("ACME after 3 attempts")
			assertThat(it.getBean(RecordingListener::class.java).delays()).hasSize(2)
		}
	}

	@Test
	fun `a suspend fun that returns Unit is retried`() {
		start().use { context ->
			val quotes = context.getBean(Quotes::class.java)
			val call = this.callers.async { quotes.ping() }
			this.time.advanceTimeBy(Duration.ofMillis(200))
			assertThat(call.value()).isEqualTo(Unit)
			assertThat(quotes.pingCalls()).isEqualTo(2)
		}
	}

	@Test
	fun `a fallback that does not fit a suspend fun stops start-up, in the caller's terms`() {
		val context = AnnotationConfigApplicationContext()
		context.register(Misfit::class.java)
		val failure = catchThrowable { context.refresh() }
		context.close()
		assertThat(failure).rootCause().isInstanceOf(BackoffConfigurationException::class.java)
			.hasMessageContaining("@Backoff(fallback) on Misfit.quote was 'cached'")
			.hasMessageContaining("and returns String")
			.hasMessageContaining("Declare String cached(String, Throwable failure) in Misfit.")
	}

	@Test
	fun `retryIf tests what the suspend fun returns`() {
		start().use { context ->
			val quotes = context.getBean(Quotes::class.java)
			val call = this.callers.async { quotes.pending() }
			assertThat(quotes.pendingCalls()).isEqualTo(1)
			this.time.advanceTimeBy(Duration.ofMillis(100))
			assertThat(call.value()).isEqualTo("ready")
			assertThat(quotes.pendingCalls()).isEqualTo(2)
		}
	}

	@Test
	fun `retryOnException decides which failures of a suspend fun are retried`() {
		start().use { context ->
			val quotes = context.getBean(Quotes::class.java)
			val call = this.callers.async { runCatching { quotes.refused() } }
			// Not retried: the failure reaches the caller at once, as it was thrown.
			assertThat(call.value().exceptionOrNull()).isInstanceOf(IllegalArgumentException::class.java)
				.hasMessage("refused")
			assertThat(quotes.refusedCalls()).isEqualTo(1)
		}
	}

	@Test
	fun `the policy's retry budget stops a suspend fun's retries`() {
		start("backoff.policies.quotes.budget.enabled" to "true", "backoff.policies.quotes.budget.max-tokens" to "4")
			.use { context ->
				val quotes = context.getBean(Quotes::class.java)
				val call = this.callers.async { runCatching { quotes.alwaysDown() } }
				this.time.advanceTimeBy(Duration.ofHours(1))
				assertThat(call.value().exceptionOrNull()).hasMessage("down")
				// 4 tokens: the first failure leaves 3, more than half, the second 2, not more.
				assertThat(quotes.alwaysDownCalls()).isEqualTo(2)
				assertThat(outcome(context, "Quotes.alwaysDown", "budget_exhausted")).isEqualTo(1.0)
			}
	}

	@Test
	fun `a plain fallback answers for a suspend fun whose attempts ran out`() {
		start().use { context ->
			val quotes = context.getBean(Quotes::class.java)
			val call = this.callers.async { quotes.down("ACME") }
			this.time.advanceTimeBy(Duration.ofMillis(10))
			assertThat(call.value()).isEqualTo("cached ACME after IllegalStateException")
			assertThat(quotes.downCalls()).isEqualTo(2)
		}
	}

	@Test
	fun `a suspend fallback answers in the calling coroutine's context`() {
		start().use { context ->
			val quotes = context.getBean(Quotes::class.java)
			val call = this.callers.async(CoroutineName("caller")) { quotes.downToo("ACME") }
			this.time.advanceTimeBy(Duration.ofMillis(10))
			assertThat(call.value()).isEqualTo("cached ACME for caller after down")
			assertThat(quotes.downCalls()).isEqualTo(2)
		}
	}

	@Test
	fun `cancelling the caller during a wait ends the call interrupted with nothing left scheduled`() {
		start().use { context ->
			val quotes = context.getBean(Quotes::class.java)
			val call = this.callers.async { quotes.alwaysDown() }
			assertThat(quotes.alwaysDownCalls()).isEqualTo(1)
			call.cancel()
			assertThat(call.isCancelled).isTrue()
			// Past every wait the policy could have: no attempt starts.
			this.time.advanceTimeBy(Duration.ofHours(1))
			assertThat(quotes.alwaysDownCalls()).isEqualTo(1)
			assertThat(outcome(context, "Quotes.alwaysDown", "interrupted")).isEqualTo(1.0)
		}
	}

	@Test
	fun `cancelling the caller during an attempt cancels the attempt's coroutine`() {
		start().use { context ->
			val quotes = context.getBean(Quotes::class.java)
			val call = this.callers.async { quotes.hangs() }
			assertThat(quotes.hangCalls()).isEqualTo(1)
			assertThat(quotes.hangCancelled()).isFalse()
			call.cancel()
			assertThat(quotes.hangCancelled()).isTrue()
			this.time.advanceTimeBy(Duration.ofHours(1))
			assertThat(quotes.hangCalls()).isEqualTo(1)
			assertThat(outcome(context, "Quotes.hangs", "interrupted")).isEqualTo(1.0)
		}
	}

	@Test
	fun `an attempt of a suspend fun that never completes is timed out, cancelled and retried`() {
		start().use { context ->
			val quotes = context.getBean(Quotes::class.java)
			val call = this.callers.async { runCatching { quotes.stuck() } }
			assertThat(quotes.stuckCalls()).isEqualTo(1)
			// Each attempt 1s, then the waits of 200ms and 400ms.
			this.time.advanceTimeBy(Duration.ofMillis(1200))
			assertThat(quotes.stuckCalls()).isEqualTo(2)
			assertThat(quotes.stuckCancelled()).isEqualTo(1)
			this.time.advanceTimeBy(Duration.ofMillis(2400))
			val failure = call.value().exceptionOrNull()
			assertThat(failure).isInstanceOf(TimeoutException::class.java)
				.hasMessage("attempt 3 did not complete within 1s")
			assertThat(quotes.stuckCalls()).isEqualTo(3)
			assertThat(quotes.stuckCancelled()).isEqualTo(3)
			assertThat(outcome(context, "Quotes.stuck", "exhausted")).isEqualTo(1.0)
			this.time.advanceTimeBy(Duration.ofHours(1))
			assertThat(quotes.stuckCalls()).isEqualTo(3)
		}
	}

	@Test
	fun `an attempt of a Flow that never completes is timed out as a whole and retried`() {
		start().use { context ->
			val quotes = context.getBean(Quotes::class.java)
			val collected = mutableListOf<String>()
			val call = this.callers.async { runCatching { quotes.stuckFlow().collect { collected.add(it) } } }
			this.time.advanceTimeBy(Duration.ofMillis(3600))
			assertThat(call.value().exceptionOrNull()).isInstanceOf(TimeoutException::class.java)
			// Each attempt emitted before it hung; a retry emits from its start again.
			assertThat(collected).containsExactly("partial 1", "partial 2", "partial 3")
			assertThat(quotes.stuckCancelled()).isEqualTo(3)
		}
	}

	@Test
	fun `a Flow is retried for each collection, from its start`() {
		start().use { context ->
			val quotes = context.getBean(Quotes::class.java)
			val stream = quotes.stream()
			// Nothing runs before the flow is collected.
			assertThat(quotes.streamCalls()).isEqualTo(0)
			val first = this.callers.async { stream.toList() }
			assertThat(quotes.streamCalls()).isEqualTo(1)
			this.time.advanceTimeBy(Duration.ofMillis(200))
			// The failed attempt's element, then the retry's from the start.
			assertThat(first.value()).containsExactly("a1", "a2", "b2")
			// Collecting again is another call, which runs the method again.
			val second = this.callers.async { stream.toList() }
			assertThat(second.value()).containsExactly("a3", "b3")
			assertThat(outcome(context, "Quotes.stream", "success_after_retry")).isEqualTo(1.0)
			assertThat(outcome(context, "Quotes.stream", "success")).isEqualTo(1.0)
		}
	}

	@Test
	fun `a fallback answers for a Flow with a Flow`() {
		start().use { context ->
			val quotes = context.getBean(Quotes::class.java)
			val call = this.callers.async { quotes.streamDown().toList() }
			this.time.advanceTimeBy(Duration.ofMillis(10))
			assertThat(call.value()).containsExactly("down 1", "down 2", "cached after cut")
		}
	}

	@Test
	fun `a suspend fun that returns a Flow is retried for each collection`() {
		start().use { context ->
			val quotes = context.getBean(Quotes::class.java)
			val call = this.callers.async { quotes.streamLater().toList() }
			this.time.advanceTimeBy(Duration.ofMillis(200))
			assertThat(call.value()).containsExactly("a1", "a2", "b2")
		}
	}

	@Test
	fun `a suspend fun called inside another's attempt leaves the retries to it`() {
		start().use { context ->
			val outer = context.getBean(Outer::class.java)
			val call = this.callers.async { runCatching { outer.fetch() } }
			this.time.advanceTimeBy(Duration.ofMillis(600))
			assertThat(call.value().exceptionOrNull()).hasMessage("inner down")
			// backoff.nested=outermost: the inner call learns of the outer one through the Reactor
			// context that each attempt's coroutine carries, and makes one attempt per outer attempt.
			assertThat(outer.attempts()).isEqualTo(3)
			assertThat(context.getBean(Inner::class.java).attempts()).isEqualTo(3)
		}
	}

	private fun outcome(context: AnnotationConfigApplicationContext, method: String, outcome: String): Double =
		context.getBean(MeterRegistry::class.java).get("backoff.calls").tags("method", method, "outcome", outcome)
			.counter().count()

	/** The value of a call that has ended: the test never waits for one. */
	private fun <T> Deferred<T>.value(): T {
		assertThat(this.isCompleted).`as`("the call has ended").isTrue()
		return runBlocking { await() }
	}

	private fun start(vararg more: Pair<String, String>): AnnotationConfigApplicationContext {
		val context = AnnotationConfigApplicationContext()
		val properties = MockPropertySource()
			.withProperty("backoff.policies.quotes.max-attempts", "3")
			.withProperty("backoff.policies.quotes.base-delay", "200ms")
			.withProperty("backoff.policies.quotes.jitter", "none")
		more.forEach { (name, value) -> properties.setProperty(name, value) }
		context.environment.propertySources.addFirst(properties)
		context.register(Application::class.java)
		context.refresh()
		return context
	}

	@Configuration(proxyBeanMethods = false)
	@EnableBackoff
	open class Application {

		@Bean
		open fun listener() = RecordingListener()

		@Bean
		open fun meterRegistry() = SimpleMeterRegistry()

		@Bean
		open fun quotes() = Quotes()

		@Bean
		open fun inner() = Inner()

		@Bean
		open fun outer(inner: Inner) = Outer(inner)

	}

	/** Its fallback returns an Int, where the suspend fun returns a String to its callers. */
	@Configuration(proxyBeanMethods = false)
	@EnableBackoff
	open class Misfit {

		@Backoff(fallback = "cached")
		open suspend fun quote(symbol: String): String = symbol

		open suspend fun cached(symbol: String, failure: Throwable): Int = 0

	}

	open class Outer(private val inner: Inner) {

		private val attempts = AtomicInteger()

		@Backoff("quotes")
		open suspend fun fetch(): String {
			this.attempts.incrementAndGet()
			return this.inner.fetch()
		}

		open fun attempts() = this.attempts.get()

	}

	open class Inner {

		private val attempts = AtomicInteger()

		@Backoff("quotes")
		open suspend fun fetch(): String {
			this.attempts.incrementAndGet()
			throw IllegalStateException("inner down")
		}

		open fun attempts() = this.attempts.get()

	}

	/**
	 * Open, as the kotlin-spring compiler plugin would make it, so that Spring can proxy it;
	 * its counters are read through open functions, since the proxy has no state of its own.
	 */
	open class Quotes {

		private val flaky = AtomicInteger()

		private val stuck = AtomicInteger()

		private val stuckCancelled = AtomicInteger()

		private val pending = AtomicInteger()

		private val refused = AtomicInteger()

		private val down = AtomicInteger()

		private val alwaysDown = AtomicInteger()

		private val ping = AtomicInteger()

		private val hangs = AtomicInteger()

		private val hangCancelled = AtomicBoolean()

		private val stream = AtomicInteger()

		@Backoff("quotes")
		open suspend fun flaky(symbol: String): String {
			if (this.flaky.incrementAndGet() < 3) {
				throw IllegalStateException("not yet")
			}
			return "$symbol after ${this.flaky.get()} attempts"
		}

		@Backoff(maxAttempts = "3", baseDelay = "100ms", jitter = [Jitter.NONE], retryIf = "#result == 'pending'")
		open suspend fun pending(): String = if (this.pending.incrementAndGet() < 2) "pending" else "ready"

		@Backoff("quotes", retryOnException = "!(#exception instanceof T(IllegalArgumentException))")
		open suspend fun refused(): String {
			this.refused.incrementAndGet()
			throw IllegalArgumentException("refused")
		}

		@Backoff(maxAttempts = "2", baseDelay = "PT0.01S", fallback = "cached")
		open suspend fun down(symbol: String): String {
			this.down.incrementAndGet()
			throw IllegalStateException("down")
		}

		open fun cached(symbol: String, failure: IllegalStateException): String =
			"cached $symbol after ${failure.javaClass.simpleName}"

		@Backoff(maxAttempts = "2", baseDelay = "PT0.01S", fallback = "cachedLater")
		open suspend fun downToo(symbol: String): String {
			this.down.incrementAndGet()
			throw IllegalStateException("down")
		}

		open suspend fun cachedLater(symbol: String, failure: Throwable): String =
			"cached $symbol for ${currentCoroutineContext()[CoroutineName]?.name} after ${failure.message}"

		@Backoff("quotes")
		open suspend fun ping() {
			if (this.ping.incrementAndGet() < 2) {
				throw IllegalStateException("not yet")
			}
		}

		@Backoff("quotes")
		open suspend fun alwaysDown(): String {
			this.alwaysDown.incrementAndGet()
			throw IllegalStateException("down")
		}

		@Backoff("quotes", attemptTimeout = "1s")
		open suspend fun stuck(): String {
			this.stuck.incrementAndGet()
			try {
				awaitCancellation()
			}
			finally {
				this.stuckCancelled.incrementAndGet()
			}
		}

		@Backoff("quotes", attemptTimeout = "1s")
		open fun stuckFlow(): Flow<String> = flow {
			emit("partial ${this@Quotes.stuck.incrementAndGet()}")
			try {
				awaitCancellation()
			}
			finally {
				this@Quotes.stuckCancelled.incrementAndGet()
			}
		}

		open fun stuckCalls() = this.stuck.get()

		open fun stuckCancelled() = this.stuckCancelled.get()

		@Backoff("quotes")
		open suspend fun hangs(): String {
			this.hangs.incrementAndGet()
			try {
				awaitCancellation()
			}
			finally {
				this.hangCancelled.set(true)
			}
		}

		@Backoff("quotes")
		open fun stream(): Flow<String> = flow {
			val attempt = this@Quotes.stream.incrementAndGet()
			emit("a$attempt")
			if (attempt < 2) {
				throw IllegalStateException("cut")
			}
			emit("b$attempt")
		}

		@Backoff("quotes")
		open suspend fun streamLater(): Flow<String> = stream()

		@Backoff(maxAttempts = "2", baseDelay = "PT0.01S", fallback = "cachedStream")
		open fun streamDown(): Flow<String> = flow {
			emit("down ${this@Quotes.down.incrementAndGet()}")
			throw IllegalStateException("cut")
		}

		open fun cachedStream(failure: IllegalStateException): Flow<String> = flowOf("cached after ${failure.message}")

		open fun flakyCalls() = this.flaky.get()

		open fun pendingCalls() = this.pending.get()

		open fun refusedCalls() = this.refused.get()

		open fun downCalls() = this.down.get()

		open fun alwaysDownCalls() = this.alwaysDown.get()

		open fun pingCalls() = this.ping.get()

		open fun hangCalls() = this.hangs.get()

		open fun hangCancelled() = this.hangCancelled.get()

		open fun streamCalls() = this.stream.get()

	}

}
