package dev.backoff.spring.retry;

import org.jspecify.annotations.Nullable;

import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryListener;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryState;
import org.springframework.core.retry.Retryable;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * A named policy as Framework 7's {@link RetryPolicy}, for everything built on
 * {@code RetryTemplate}: {@link #shouldRetry} is the policy's {@code retry-on}, {@code abort-on}
 * and {@code retry-on-exception}, and {@link #getBackOff()} its waits, which stop by
 * themselves at the policy's attempts, max-elapsed or retry budget (so the template needs no
 * {@code maxRetries}, which its builder refuses beside a custom back-off anyway).
 *
 * <p>{@code RetryTemplate} tells a policy neither the call it serves nor how the call ended;
 * the cycle started by {@link #getBackOff()} is kept for the calling thread, on which the
 * template runs the whole call, and {@link #listener()}, registered on the template, reports
 * its end to the meters, and each call that succeeded at its first attempt, which started no
 * cycle ({@code success}, and the budget's share back). Without it (Spring AMQP's listener retry
 * has no place for it), a cycle that ended in a success is counted as one when the thread starts
 * its next cycle; not under a stateful user, whose cycles interleave on a thread (its successes
 * are not counted); and no first-attempt success is seen, so the budget only drains.
 */
public final class PolicyRetryPolicy implements RetryPolicy {

	private final PolicyBackOff backOff;

	/** The cycle of the call that the template runs on this thread. */
	private final ThreadLocal<@Nullable Step> current = new ThreadLocal<>();

	/**
	 * Whether a cycle has drawn a wait before it was told the failure: a stateful user, such as
	 * Spring AMQP's stateful listener retry, which keeps a cycle per message across deliveries
	 * and asks {@link #shouldRetry} after the draw. Its cycles interleave on a thread, so an open
	 * cycle says nothing about how an earlier call ended.
	 */
	private volatile boolean stateful;

	private final BackOff cycles;

	PolicyRetryPolicy(PolicyBackOff backOff) {
		this.backOff = backOff;
		this.cycles = () -> {
			Step earlier = this.current.get();
			if (earlier != null && !this.stateful && earlier.drawn && !earlier.cycle.isEnded()) {
				// The template runs a call on one thread: the earlier one is over, and it did not end
				// by the policy, so its last attempt succeeded (an integration without our listener).
				earlier.cycle.succeeded();
			}
			Step step = new Step(this.backOff.start());
			this.current.set(step);
			return step;
		};
	}

	@Override
	public boolean shouldRetry(Throwable failure) {
		Step step = this.current.get();
		PolicyBackOff.@Nullable Cycle cycle = (step != null) ? step.cycle : null;
		if (step != null) {
			step.told = true;
			step.cycle.failed(failure);
		}
		boolean retry = this.backOff.getOperation().getPolicy().getRules().isRetryable(failure);
		if (!retry && cycle != null) {
			// Ends the cycle as not_retryable, as the policy classifies it.
			cycle.nextBackOff();
		}
		return retry;
	}

	@Override
	public BackOff getBackOff() {
		return this.cycles;
	}

	/** @return the back-off whose cycles this policy starts */
	public PolicyBackOff getPolicyBackOff() {
		return this.backOff;
	}

	/** @return the listener to register on the {@code RetryTemplate}, which reports how each call ended */
	public RetryListener listener() {
		return new RetryListener() {

			@Override
			public void onRetrySuccess(RetryPolicy policy, Retryable<?> retryable, @Nullable Object result) {
				PolicyBackOff.Cycle cycle = end();
				if (cycle != null) {
					cycle.succeeded();
				}
			}

			@Override
			public void onRetryPolicyExhaustion(RetryPolicy policy, Retryable<?> retryable, RetryException exception) {
				end();
			}

			@Override
			public void onRetryPolicyInterruption(RetryPolicy policy, Retryable<?> retryable,
					RetryException exception) {
				PolicyBackOff.Cycle cycle = end();
				if (cycle != null) {
					cycle.interrupted(exception.getCause());
				}
			}

			@Override
			public void onRetryPolicyTimeout(RetryPolicy policy, Retryable<?> retryable, RetryException exception) {
				PolicyBackOff.Cycle cycle = end();
				if (cycle != null) {
					cycle.interrupted(exception.getCause());
				}
			}

			@Override
			public void onRetryableExecution(RetryPolicy policy, Retryable<?> retryable, RetryState state) {
				// A success at the first attempt starts no cycle: only this tells of it, and the budget needs its share.
				if (state.isSuccessful() && state.getExceptions().isEmpty()) {
					PolicyRetryPolicy.this.backOff.succeededAtOnce();
				}
			}

		};
	}

	private PolicyBackOff.@Nullable Cycle end() {
		Step step = this.current.get();
		this.current.remove();
		return (step != null) ? step.cycle : null;
	}

	/** A cycle as the template sees it: whether each draw followed {@link #shouldRetry}. */
	private final class Step implements BackOffExecution {

		final PolicyBackOff.Cycle cycle;

		boolean told;

		boolean drawn;

		Step(PolicyBackOff.Cycle cycle) {
			this.cycle = cycle;
		}

		@Override
		public long nextBackOff() {
			if (!this.told) {
				PolicyRetryPolicy.this.stateful = true;
			}
			this.told = false;
			this.drawn = true;
			// The stateful user asks shouldRetry right after this draw, about this cycle.
			PolicyRetryPolicy.this.current.set(this);
			return this.cycle.nextBackOff();
		}

	}

	@Override
	public String toString() {
		return "PolicyRetryPolicy[" + this.backOff + "]";
	}

}
