package dev.backoff.spring

import java.io.IOException
import java.time.Duration
import java.util.concurrent.atomic.AtomicInteger

import dev.backoff.Backoff
import dev.backoff.Pacing
import dev.backoff.spring.config.BackoffPolicies
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

import org.springframework.context.annotation.AnnotationConfigApplicationContext
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.mock.env.MockPropertySource

/**
 * A `suspend` fun, retried as a `Mono` is: a retry whose slot at the pace lies past what
 * `max-elapsed` leaves of the call is not sent, and the caller gets the first attempt's own
 * failure. The pace is woken before the call; while its first attempt runs, other callers take
 * the slots of the next 5 s, past the policy's 1 s.
 */
class CoroutinePacedRetryTests {

	@Test
	fun `a suspend fun's retry whose slot is past max-elapsed is not sent and the caller gets the original failure`() {
		val context = AnnotationConfigApplicationContext()
		context.environment.propertySources.addFirst(MockPropertySource()
			.withProperty("backoff.policies.bounded.base-delay", "0ms")
			.withProperty("backoff.policies.bounded.max-elapsed", "1s")
			.withProperty("backoff.policies.bounded.pacing.enabled", "true")
			.withProperty("backoff.policies.bounded.throttle-on", Throttled::class.java.name))
		context.register(Application::class.java)
		context.refresh()
		context.use {
			val dependency = it.getBean(Dependency::class.java)
			val pacing = it.getBean(BackoffPolicies::class.java).getEffective("bounded")!!.controls()!!.pacing!!
			pacing.onThrottled()
			dependency.pace(pacing)
			val thrown = runCatching { runBlocking { dependency.fetch() } }.exceptionOrNull()
			// Kotlin's stack-trace recovery may hand over a copy, caused by the original.
			assertThat(generateSequence(thrown) { failure -> failure.cause }.any { failure -> failure === dependency.throttled() })
				.`as`("the first attempt's own failure, got %s", thrown).isTrue()
			assertThat(dependency.sent()).isEqualTo(1)
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableBackoff
	open class Application {

		@Bean
		open fun dependency() = Dependency()

	}

	/** Throttles its first attempt, during which other callers take the pace's slots of the next 5 s. */
	open class Dependency {

		private val throttled = Throttled()

		private val sent = AtomicInteger()

		@Volatile
		private var pacing: Pacing? = null

		@Backoff("bounded")
		open suspend fun fetch(): String {
			if (this.sent.incrementAndGet() > 1) {
				return "ok"
			}
			while (this.pacing!!.acquire(Duration.ofSeconds(5).toNanos()) >= 0) {
				// Taken by another caller.
			}
			throw this.throttled
		}

		open fun pace(pacing: Pacing) {
			this.pacing = pacing
		}

		open fun throttled() = this.throttled

		open fun sent() = this.sent.get()

	}

	class Throttled : IOException()

}
