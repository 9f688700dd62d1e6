package dev.backoff.spring

import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicInteger

import dev.backoff.Backoff
import io.micrometer.core.instrument.kotlin.asContextElement
import io.micrometer.observation.Observation
import io.micrometer.observation.ObservationHandler
import io.micrometer.observation.ObservationRegistry
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
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

/**
 * Observations of a `suspend fun`'s calls, with `backoff.observations.enabled=true`, for a
 * caller whose coroutine carries its observation as Micrometer's context element.
 */
class CoroutineObservationTests {

	private lateinit var time: VirtualTimeScheduler

	@BeforeEach
	fun virtualTime() {
		this.time = VirtualTimeScheduler.getOrSet()
	}

	@AfterEach
	fun realTime() {
		VirtualTimeScheduler.reset()
	}

	@Test
	fun `the call's observation is a child of the calling coroutine's`() {
		start().use { context ->
			val registry = context.getBean(ObservationRegistry::class.java)
			val caller = Observation.start("caller", registry)
			val callersObservation = caller.openScope().use { registry.asContextElement() }
			// The scope is closed: only the coroutine's context knows the caller's observation.
			assertThat(registry.currentObservation).isNull()
			val call = CoroutineScope(Dispatchers.Unconfined + callersObservation).async {
				context.getBean(Quotes::class.java).flaky()
			}
			this.time.advanceTimeBy(Duration.ofMillis(100))
			assertThat(call.isCompleted).isTrue()
			assertThat(runBlocking { call.await() }).isEqualTo("quote")
			// The proxy subscribes to the call inside the caller's coroutine, where Micrometer's
			// element has made the caller's observation current on the thread; each attempt
			// nests under the call.
			assertThat(context.getBean(Started::class.java)).containsExactly("caller <- none", "backoff.call <- caller",
					"backoff.attempt <- backoff.call", "backoff.attempt <- backoff.call")
		}
	}

	private fun start(): AnnotationConfigApplicationContext {
		val context = AnnotationConfigApplicationContext()
		context.environment.propertySources.addFirst(MockPropertySource()
			.withProperty("backoff.observations.enabled", "true")
			.withProperty("backoff.defaults.base-delay", "100ms")
			.withProperty("backoff.defaults.jitter", "none"))
		context.register(Application::class.java)
		context.refresh()
		return context
	}

	/** Each observation started, as "name <- parent's name". */
	class Started : CopyOnWriteArrayList<String>()

	@Configuration(proxyBeanMethods = false)
	@EnableBackoff
	open class Application {

		@Bean
		open fun started() = Started()

		@Bean
		open fun observationRegistry(started: Started): ObservationRegistry {
			val registry = ObservationRegistry.create()
			registry.observationConfig().observationHandler(object : ObservationHandler<Observation.Context> {

				override fun supportsContext(context: Observation.Context) = true

				override fun onStart(context: Observation.Context) {
					started.add(context.name + " <- " + (context.parentObservation?.contextView?.name ?: "none"))
				}

			})
			return registry
		}

		@Bean
		open fun quotes() = Quotes()

	}

	open class Quotes {

		private val calls = AtomicInteger()

		@Backoff
		open suspend fun flaky(): String {
			if (this.calls.incrementAndGet() < 2) {
				throw IllegalStateException("not yet")
			}
			return "quote"
		}

	}

}
