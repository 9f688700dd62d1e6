package dev.backoff.spring

import java.io.IOException
import java.util.concurrent.atomic.AtomicInteger

import dev.backoff.AdmissionRejectedException
import dev.backoff.Backoff
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

import org.springframework.context.annotation.AnnotationConfigApplicationContext
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.mock.env.MockPropertySource

/**
 * A `suspend` fun under a policy with admission: retried as a `Mono` is, its attempts are rejected
 * locally once the dependency fails them, and a rejected call throws [AdmissionRejectedException]
 * without calling the function.
 */
class CoroutineOverloadControlsTests {

	@Test
	fun `a suspend fun's attempts are rejected locally once the dependency fails them`() {
		val context = AnnotationConfigApplicationContext()
		context.environment.propertySources.addFirst(MockPropertySource()
			.withProperty("backoff.policies.overloaded.max-attempts", "1")
			.withProperty("backoff.policies.overloaded.admission.enabled", "true"))
		context.register(Application::class.java)
		context.refresh()
		context.use {
			val dependency = it.getBean(Dependency::class.java)
			var rejected = 0
			repeat(100) {
				try {
					runBlocking { dependency.fetch() }
				}
				catch (ex: AdmissionRejectedException) {
					rejected++
				}
				catch (ex: IOException) {
					// Sent, and failed.
				}
			}
			// Every attempt fails, so the rejection probability climbs to 0.9: about 90 of 100.
			assertThat(rejected).isBetween(51, 99)
			assertThat(dependency.sent()).isEqualTo(100 - rejected)
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableBackoff
	open class Application {

		@Bean
		open fun dependency() = Dependency()

	}

	open class Dependency {

		private val sent = AtomicInteger()

		@Backoff("overloaded")
		open suspend fun fetch(): String {
			this.sent.incrementAndGet()
			throw IOException("down")
		}

		open fun sent() = this.sent.get()

	}

}
