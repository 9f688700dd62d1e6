package dev.backoff.sample;

import org.junit.jupiter.api.Test;

import org.springframework.aot.AotDetector;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The build runs the sample's tests twice: as usual, and again with
 * {@code -Dspring.aot.enabled=true} against the context that {@code process-test-aot} generated
 * (the {@code aot} execution of Surefire). This proves which one a run used.
 */
@SampleAppTest
class AotModeTests {

	@Autowired
	private ConfigurableApplicationContext context;

	@Test
	void runsOnTheAheadOfTimeProcessedContextExactlyWhenSpringAotIsEnabled() {
		boolean aot = Boolean.getBoolean("spring.aot.enabled");
		assertThat(AotDetector.useGeneratedArtifacts()).isEqualTo(aot);
		// Generated code registers every bean with an instance supplier instead of reflection.
		AbstractBeanDefinition quoteClient = (AbstractBeanDefinition) this.context.getBeanFactory()
			.getBeanDefinition("quoteClient");
		assertThat(quoteClient.getInstanceSupplier() != null).isEqualTo(aot);
	}

}
