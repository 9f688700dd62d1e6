package dev.backoff.sample;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.backoff.test.InstantBackoff;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.ActiveProfiles;

/**
 * The whole application on a random port, its production policies retrying without waiting
 * ({@link InstantBackoff}: the waits are computed, metered and recorded, not waited). Every
 * test class uses exactly this, so they share one cached context; tests reset the state they
 * use through the API instead of dirtying the context.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@SpringBootTest(classes = SampleApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT)
@ActiveProfiles("test")
@InstantBackoff
public @interface SampleAppTest {

}
