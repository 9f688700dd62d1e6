package dev.backoff.test;

import java.util.SplittableRandom;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.backoff.RandomSource;
import dev.backoff.RetryTask;
import dev.backoff.Sleeper;
import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.spring.operation.BackoffScheduler;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * What {@link InstantBackoff} imports, ahead of Backoff's own auto-configuration, whose beans
 * of the same kinds then back off: the instant sleeper, a scheduler that runs every retry at
 * once (and its other timers at their delays), a seeded random source when a seed is given, and
 * the {@link BackoffRecorder}.
 */
@AutoConfiguration(before = BackoffAutoConfiguration.class)
public final class InstantBackoffAutoConfiguration {

	@Bean
	Sleeper backoffSleeper() {
		return Sleeper.INSTANT;
	}

	@Bean(name = BackoffAutoConfiguration.SCHEDULER_BEAN_NAME, defaultCandidate = false)
	BackoffScheduler backoffScheduler() {
		// One thread: the retries of a call run at once, and in the order they were scheduled.
		return new InstantScheduler();
	}

	@Bean
	RandomSource backoffRandomSource(@Value("${backoff.test.seed:-1}") long seed) {
		return (seed >= 0) ? () -> new SplittableRandom(seed) : RandomSource.THREAD_LOCAL;
	}

	@Bean
	BackoffRecorder backoffRecorder() {
		return new BackoffRecorder();
	}

	/**
	 * Runs each scheduled retry at once instead of after its wait. Every other task (an attempt
	 * timeout, a hedge timer) runs at its delay: run at once, it would time every attempt out or
	 * hedge every call.
	 */
	static final class InstantScheduler extends BackoffScheduler {

		InstantScheduler() {
			super(1, daemonThreads());
		}

		private static CustomizableThreadFactory daemonThreads() {
			CustomizableThreadFactory threads = new CustomizableThreadFactory("backoff-instant-");
			threads.setDaemon(true);
			return threads;
		}

		@Override
		public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
			return super.schedule(command, (command instanceof RetryTask) ? 0 : delay, unit);
		}

	}

}
