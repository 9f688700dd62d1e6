package dev.backoff.spring;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.backoff.BackoffListener;
import dev.backoff.Outcome;
import org.jspecify.annotations.Nullable;

/**
 * A {@link BackoffListener} bean that records how calls ended, for calls that end on another
 * thread: a test waits for the next outcome instead of sleeping.
 */
public class EndRecorder implements BackoffListener {

	private final BlockingQueue<Outcome> outcomes = new LinkedBlockingQueue<>();

	@Override
	public void onSuccess(Outcome outcome, int attempts) {
		this.outcomes.add(outcome);
	}

	@Override
	public void onFailure(Outcome outcome, int attempts, @Nullable Throwable failure) {
		this.outcomes.add(outcome);
	}

	/** @return the next outcome, waiting up to ten seconds for it; {@code null} if none came */
	public @Nullable Outcome next() throws InterruptedException {
		return this.outcomes.poll(10, TimeUnit.SECONDS);
	}

}
