package dev.backoff.spring.docs

import java.io.IOException
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.util.concurrent.atomic.AtomicInteger

import dev.backoff.Backoff
import dev.backoff.spring.EnableBackoff
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import reactor.test.scheduler.VirtualTimeScheduler

import org.springframework.context.annotation.AnnotationConfigApplicationContext
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.mock.env.MockPropertySource
import org.springframework.stereotype.Component

// The example of docs/return-types.md#kotlin, as it is there (see theDocumentedExampleIsThisCode).

@Component
open class Quotes(private val client: QuoteClient) {

    @Backoff("quotes", fallback = "lastKnown")
    open suspend fun quote(symbol: String): Quote = client.quote(symbol)

    // A suspend fallback, or a plain one; it takes the failure if it declares it.
    open suspend fun lastKnown(symbol: String, failure: IOException): Quote = client.cached(symbol)

    @Backoff("quotes")
    open fun ticks(symbol: String): Flow<Quote> = client.ticks(symbol)
}

// The rest is the test's.

data class Quote(val symbol: String, val price: String)

/** Fails as told: each symbol's first [failures] requests. */
open class QuoteClient(private val failures: Int) {

	val requests = AtomicInteger()

	suspend fun quote(symbol: String): Quote {
		if (this.requests.incrementAndGet() <= this.failures) {
			throw IOException("connection reset")
		}
		return Quote(symbol, "42.00")
	}

	suspend fun cached(symbol: String): Quote = Quote(symbol, "41.00 (cached)")

	fun ticks(symbol: String): Flow<Quote> = flow {
		val request = this@QuoteClient.requests.incrementAndGet()
		emit(Quote(symbol, "42.00"))
		if (request <= this@QuoteClient.failures) {
			throw IOException("stream reset")
		}
		emit(Quote(symbol, "42.01"))
	}

}

/**
 * Runs the Kotlin example of docs/return-types.md in a plain Spring application, with the
 * policy of that page, the waits in virtual time; and checks that the page shows this code.
 */
class ReturnTypesKotlinTests {

	private lateinit var time: VirtualTimeScheduler

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
	fun `a suspend fun is retried and answers`() {
		start(failures = 2).use { context ->
			val call = this.callers.async { context.getBean(Quotes::class.java).quote("ACME") }
			this.time.advanceTimeBy(Duration.ofMillis(200 + 400))
			assertThat(call.value()).isEqualTo(Quote("ACME", "42.00"))
			assertThat(context.getBean(QuoteClient::class.java).requests.get()).isEqualTo(3)
		}
	}

	@Test
	fun `the suspend fallback answers once the attempts run out`() {
		start(failures = 3).use { context ->
			val call = this.callers.async { context.getBean(Quotes::class.java).quote("ACME") }
			this.time.advanceTimeBy(Duration.ofMillis(200 + 400))
			assertThat(call.value()).isEqualTo(Quote("ACME", "41.00 (cached)"))
		}
	}

	@Test
	fun `a Flow is collected again from its start after a failure`() {
		start(failures = 1).use { context ->
			val call = this.callers.async { context.getBean(Quotes::class.java).ticks("ACME").toList() }
			this.time.advanceTimeBy(Duration.ofMillis(200))
			assertThat(call.value().map(Quote::price)).containsExactly("42.00", "42.00", "42.01")
		}
	}

	@Test
	fun `the documented example is this code`() {
		val page = Files.readString(Path.of("../docs/return-types.md"))
		val example = page.substringAfter("```kotlin\n").substringBefore("```")
		val source = Files.readString(Path.of("src/test/kotlin/dev/backoff/spring/docs/ReturnTypesKotlinTests.kt"))
		assertThat(example).contains("suspend fun quote")
		assertThat(source).contains(example)
	}

	private fun <T> kotlinx.coroutines.Deferred<T>.value(): T {
		assertThat(this.isCompleted).`as`("the call has ended").isTrue()
		return runBlocking { await() }
	}

	private fun start(failures: Int): AnnotationConfigApplicationContext {
		val context = AnnotationConfigApplicationContext()
		context.environment.propertySources.addFirst(MockPropertySource()
			.withProperty("backoff.policies.quotes.max-attempts", "3")
			.withProperty("backoff.policies.quotes.base-delay", "200ms")
			.withProperty("backoff.policies.quotes.jitter", "none"))
		context.registerBean(QuoteClient::class.java, failures)
		context.register(Application::class.java, Quotes::class.java)
		context.refresh()
		return context
	}

	@Configuration(proxyBeanMethods = false)
	@EnableBackoff
	open class Application

}
