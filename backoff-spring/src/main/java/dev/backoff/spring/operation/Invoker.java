package dev.backoff.spring.operation;

import java.util.function.UnaryOperator;

import dev.backoff.BackoffTask;
import org.jspecify.annotations.Nullable;

/**
 * How the calls of one shape of return type are retried, chosen per method by a
 * {@link ReturnShape}.
 */
interface Invoker {

	/**
	 * Runs one call.
	 * @param operation the method's operation
	 * @param attempt makes one attempt
	 * @param receiver what a fallback is called on
	 * @param arguments the call's arguments, for a fallback
	 * @return what the method returns to its caller
	 * @throws Throwable the original failure of the last attempt (or of the fallback)
	 */
	@Nullable Object invoke(BackoffOperation operation, BackoffTask<@Nullable Object> attempt, @Nullable Object receiver,
			@Nullable Object[] arguments) throws Throwable;

	/** @return whether the calling thread runs the attempts and waits: no attempt timeout can apply */
	default boolean isBlocking() {
		return false;
	}

	/** @return whether copies of a call may overlap, racing for one answer ({@code max-hedges}) */
	default boolean canHedge() {
		return !isBlocking() && returnsOneValue();
	}

	/** @return whether this invoker's calls are never hedged, whatever the policy says: it is left out for them */
	default boolean dropsHedges() {
		return false;
	}

	/**
	 * @param invoker an invoker
	 * @return it, for calls never hedged whatever the policy says (an HTTP request with a body)
	 */
	static Invoker withoutHedges(Invoker invoker) {
		return new Invoker() {

			@Override
			public @Nullable Object invoke(BackoffOperation operation, BackoffTask<@Nullable Object> attempt,
					@Nullable Object receiver, @Nullable Object[] arguments) throws Throwable {
				return invoker.invoke(operation, attempt, receiver, arguments);
			}

			@Override
			public boolean isBlocking() {
				return invoker.isBlocking();
			}

			@Override
			public boolean canHedge() {
				return invoker.canHedge();
			}

			@Override
			public boolean dropsHedges() {
				return true;
			}

			@Override
			public boolean returnsOneValue() {
				return invoker.returnsOneValue();
			}

			@Override
			public @Nullable UnaryOperator<@Nullable Object> fallbackResult() {
				return invoker.fallbackResult();
			}

		};
	}

	/** @return whether a call gives one value, which {@code retryIf} can test */
	default boolean returnsOneValue() {
		return true;
	}

	/**
	 * @return what makes a fallback's plain value into what this invoker returns (a
	 * {@code Mono} for a {@code suspend} function), or {@code null} when the fallback returns
	 * what the method does
	 */
	default @Nullable UnaryOperator<@Nullable Object> fallbackResult() {
		return null;
	}

}
