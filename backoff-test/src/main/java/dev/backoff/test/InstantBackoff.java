package dev.backoff.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.PropertyMapping;
import org.springframework.boot.test.context.PropertyMapping.Skip;

/**
 * On a test class ({@code @SpringBootTest} or a test slice that builds the Backoff
 * auto-configuration): every {@code @Backoff} call in the test's context retries without
 * waiting. Blocking calls skip their sleeps, {@code CompletionStage} calls run their retries at
 * once and in order, Reactor calls skip their delays. The waits are still computed from the real
 * policies, reported to the meters and recorded by the {@link BackoffRecorder} bean, which is
 * reset before each test method.
 *
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;InstantBackoff(seed = 42)
 * class QuoteClientTests { … }
 * </pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration(InstantBackoffAutoConfiguration.class)
@PropertyMapping("backoff.test")
public @interface InstantBackoff {

	/**
	 * A fixed seed for the jitter, so that a test can assert exact waits: every call then draws
	 * the same sequence, the one {@code policy.getSchedule().delays(new SplittableRandom(seed))}
	 * gives. Tests only: in production one seed shared by many clients makes them retry in step,
	 * the very collisions jitter is there to prevent.
	 * @return the seed, or a negative value for the usual per-thread randomness
	 */
	@PropertyMapping(skip = Skip.ON_DEFAULT_VALUE)
	long seed() default -1;

}
