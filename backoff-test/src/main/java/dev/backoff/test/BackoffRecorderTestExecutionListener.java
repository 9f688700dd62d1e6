package dev.backoff.test;

import dev.backoff.spring.config.BackoffPolicies;

import org.springframework.context.ApplicationContext;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.support.AbstractTestExecutionListener;

/**
 * Resets the context's {@link BackoffRecorder}, if it has one, before each test method, so
 * that every test sees only its own calls, fills every retry budget up, and puts admission and
 * pacing back as new, so that every test starts from the configured policies. Registered in {@code META-INF/spring.factories};
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
			ApplicationContext context = testContext.getApplicationContext();
			BackoffRecorder recorder = context.getBeanProvider(BackoffRecorder.class).getIfAvailable();
			if (recorder != null) {
				recorder.reset();
				// Under @InstantBackoff (which brings the recorder) budgets start full too, so that a
				// test that empties one does not end the next test's calls budget_exhausted; and
				// admission and pacing start as new, so that its outage or 429s do not reject or pace them.
				context.getBeanProvider(BackoffPolicies.class).ifAvailable((policies) -> {
					policies.refillBudgets();
					policies.resetOverloadControls();
				});
			}
		}
	}

}
