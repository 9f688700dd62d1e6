package dev.backoff.test;

import org.springframework.test.context.TestContext;
import org.springframework.test.context.support.AbstractTestExecutionListener;

/**
 * Resets the context's {@link BackoffRecorder}, if it has one, before each test method, so
 * that every test sees only its own calls. Registered in {@code META-INF/spring.factories};
 * loads no context itself.
 */
public class BackoffRecorderTestExecutionListener extends AbstractTestExecutionListener {

	@Override
	public int getOrder() {
		// After dependency injection, which loads the context.
		return 5000;
	}

	@Override
	public void beforeTestMethod(TestContext testContext) {
		if (testContext.hasApplicationContext()) {
			testContext.getApplicationContext().getBeanProvider(BackoffRecorder.class).ifAvailable(BackoffRecorder::reset);
		}
	}

}
