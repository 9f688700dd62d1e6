package dev.backoff.aspectj.tests;

import dev.backoff.Backoff;
import dev.backoff.RecordingSleeper;
import dev.backoff.aspectj.BackoffAspect;
import dev.backoff.aspectj.BackoffAspectAutoConfiguration;
import dev.backoff.aspectj.BackoffAspectConfigurer;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.spring.aop.BackoffAnnotationBeanPostProcessor;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * What the woven aspect does outside {@code backoff.mode=aspectj}, and with no context or
 * several: it never retries on top of a proxy, lets calls through when Backoff is disabled,
 * refuses calls when no context is bound, and follows the latest open context. Runs with the
 * aspectjweaver agent.
 */
@Tag("aspectj-weaving")
@ExtendWith(OutputCaptureExtension.class)
class BackoffAspectBindingTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffAspectAutoConfiguration.class))
		.withPropertyValues("backoff.defaults.jitter=none")
		.withBean(RecordingSleeper.class)
		.withBean(Quotes.class);

	@Test
	void proxyModeRetriesThroughTheProxyAndTheAspectLetsTheCallThroughOnce(CapturedOutput output) {
		this.runner.run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			assertThat(AopUtils.isAopProxy(quotes)).isTrue();
			assertThat(context).hasSingleBean(BackoffAnnotationBeanPostProcessor.class)
				.hasSingleBean(BackoffAspectConfigurer.class);
			quotes.attempts().failNext(100);
			assertThatIllegalStateException().isThrownBy(quotes::fetch).withMessage("attempt 3 failed");
			assertThat(quotes.attempts().count()).isEqualTo(3);
			quotes.attempts().failNext(100);
			assertThatIllegalStateException().isThrownBy(quotes::refresh).withMessage("attempt 1 failed");
			assertThat(quotes.attempts().count()).isEqualTo(1);
		});
		assertThat(output).contains("BackoffAspect is woven, but backoff.mode is proxy");
	}

	@Test
	void disabledLetsWovenCallsThroughOnce(CapturedOutput output) {
		this.runner.withPropertyValues("backoff.enabled=false", "backoff.mode=aspectj").run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			assertThat(AopUtils.isAopProxy(quotes)).isFalse();
			quotes.attempts().failNext(100);
			assertThatIllegalStateException().isThrownBy(quotes::refresh).withMessage("attempt 1 failed");
			assertThat(quotes.attempts().count()).isEqualTo(1);
		});
		assertThat(output).doesNotContain("BackoffAspect is woven");
	}

	@Test
	void refusesAWovenCallWhenNoContextIsBound() {
		Quotes quotes = new Quotes();
		assertThatIllegalStateException().isThrownBy(quotes::fetch)
			.withMessage("BackoffAspect is woven but not configured: set backoff.mode=aspectj and let the Spring Boot "
					+ "auto-configuration run, or call the method after the context has started "
					+ "(called: BackoffAspectBindingTests.Quotes.fetch())");
		assertThat(quotes.attempts().count()).isZero();
	}

	@Test
	void followsTheLatestOpenContextAndFallsBackWhenItCloses() {
		ApplicationContextRunner aspectj = this.runner.withPropertyValues("backoff.mode=aspectj");
		Quotes quotes = new Quotes();
		aspectj.withPropertyValues("backoff.defaults.max-attempts=2").run((first) -> {
			aspectj.withPropertyValues("backoff.defaults.max-attempts=4").run((second) -> {
				quotes.attempts().failNext(100);
				assertThatIllegalStateException().isThrownBy(quotes::refresh).withMessage("attempt 4 failed");
			});
			quotes.attempts().failNext(100);
			assertThatIllegalStateException().isThrownBy(quotes::refresh).withMessage("attempt 2 failed");
		});
		assertThatIllegalStateException().isThrownBy(quotes::refresh)
			.withMessageStartingWith("BackoffAspect is woven but not configured");
	}

	static class Quotes {

		private final Attempts attempts = new Attempts();

		Attempts attempts() {
			return this.attempts;
		}

		public String refresh() {
			return fetch();
		}

		@Backoff
		public String fetch() {
			return this.attempts.attempt();
		}

	}

}
