package dev.backoff;

/**
 * The number of the attempt running on this thread, for code that must know whether it runs
 * first or again, as Spring Retry's {@code RetrySynchronizationManager.getContext().getRetryCount()}
 * told (that is {@code number() - 1}).
 *
 * <p>Set while a retrying call runs an attempt on this thread: a blocking method's body, and
 * the synchronous part of a method that returns a {@code CompletionStage}, {@code Mono} or
 * {@code Flux} (what runs before it returns; work it hands to other threads or a publisher's
 * later signals do not see it). Calls inside an attempt see their own number, then the
 * enclosing one's again.
 */
public final class CurrentAttempt {

	private CurrentAttempt() {
	}

	/**
	 * @return 1 in a call's first attempt, 2 in its first retry, and so on; 0 when no attempt of
	 * a retrying call runs on this thread
	 */
	public static int number() {
		return Enclosing.current().attempt;
	}

}
