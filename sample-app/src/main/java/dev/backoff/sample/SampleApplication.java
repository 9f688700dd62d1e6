package dev.backoff.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * A service that uses {@code @Backoff} for real: a flaky HTTP dependency, optimistic
 * concurrency on an H2 table, polling an asynchronous job, and an experiment that runs many
 * clients against one row with each jitter. Its policies are in {@code application.yml}.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
