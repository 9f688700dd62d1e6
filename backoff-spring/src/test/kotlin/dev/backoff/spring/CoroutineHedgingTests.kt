package dev.backoff.spring

import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.ScheduledExecutorService
import java.util.concurrent.atomic.AtomicInteger
import java.util.function.Supplier

import dev.backoff.Backoff
import dev.backoff.ManualScheduler
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

import org.springframework.context.annotation.AnnotationConfigApplicationContext
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.mock.env.MockPropertySource

/**
 * A hedged `suspend` fun: its copies are coroutines of their own, raced as the copies of a
 * `Mono` are. A [ManualScheduler] holds the hedge timer, so time passes when the test says; the
 * callers run on [Dispatchers.Unconfined], on the test's thread.
 */
class CoroutineHedgingTests {

	private val callers = CoroutineScope(Dispatchers.Unconfined)

	@Test
	fun `a suspend fun sends a copy after the hedge delay and the losing copy's coroutine is cancelled`() {
		val scheduler = ManualScheduler()
		val context = AnnotationConfigApplicationContext()
		context.environment.propertySources.addFirst(MockPropertySource()
			.withProperty("backoff.policies.reads.max-attempts", "2")
			.withProperty("backoff.policies.reads.hedge-delay", "50ms")
			.withProperty("backoff.policies.reads.max-hedges", "1"))
		context.register(Application::class.java)
		context.registerBean(BackoffConfiguration.SCHEDULER_BEAN_NAME, ScheduledExecutorService::class.java,
			Supplier<ScheduledExecutorService> { scheduler })
		context.refresh()
		context.use {
			val reads = it.getBean(Reads::class.java)
			val call = this.callers.async { reads.read() }
			assertThat(reads.copies()).hasSize(1)
			assertThat(scheduler.runNext()).isTrue()
			assertThat(reads.copies()).hasSize(2)
			reads.copies()[1].complete("second")
			assertThat(call.isCompleted).isTrue()
			assertThat(runBlocking { call.await() }).isEqualTo("second")
			assertThat(reads.cancelled()).isEqualTo(1)
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableBackoff
	open class Application {

		@Bean
		open fun reads() = Reads()

	}

	open class Reads {

		private val copies = CopyOnWriteArrayList<CompletableDeferred<String>>()

		private val cancelled = AtomicInteger()

		@Backoff("reads")
		open suspend fun read(): String {
			val answer = CompletableDeferred<String>()
			this.copies.add(answer)
			try {
				return answer.await()
			}
			catch (ex: CancellationException) {
				this.cancelled.incrementAndGet()
				throw ex
			}
		}

		open fun copies(): List<CompletableDeferred<String>> = this.copies

		open fun cancelled() = this.cancelled.get()

	}

}
